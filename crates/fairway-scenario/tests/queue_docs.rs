//! docs/scenarios.md describes every registered queue discipline and every key it reads: a
//! discipline added to fairway-aqm's list without its documentation fails here.

use std::path::Path;

use fairway_model::scenario::QueueSpec;

#[test]
fn every_discipline_and_each_of_its_keys_is_documented() {
    let md = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md")).unwrap();
    for &kind in fairway_aqm::KINDS {
        assert!(
            md.contains(&format!("`kind = \"{kind}\"")) || md.contains(&format!("`\"{kind}\"`")),
            "docs/scenarios.md does not describe queue kind `{kind}`"
        );
        for key in QueueSpec::keys_of(kind).unwrap() {
            let named = md.contains(&format!("`{key}`")) || md.contains(&format!("`{key} = "));
            assert!(named, "docs/scenarios.md does not name `{key}` (queue kind `{kind}`)");
        }
    }
}
