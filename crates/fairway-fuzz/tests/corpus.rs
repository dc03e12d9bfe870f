//! Every input of the fuzz corpus and every regression (inputs that once panicked or looped)
//! runs through its target: none may panic or loop.

use std::path::Path;

use fairway_fuzz::{target, TARGETS};

fn replay(dir: &Path) -> usize {
    let mut n = 0;
    let Ok(targets) = std::fs::read_dir(dir) else { return 0 };
    for t in targets.flatten() {
        let name = t.file_name().to_string_lossy().into_owned();
        let tgt = target(&name).unwrap_or_else(|| panic!("{}: no target `{name}`", dir.display()));
        for f in std::fs::read_dir(t.path()).unwrap().flatten() {
            let input = std::fs::read(f.path()).unwrap();
            (tgt.run)(&input);
            n += 1;
        }
    }
    n
}

#[test]
fn the_corpus_and_the_regressions_pass() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    assert!(replay(&fuzz.join("corpus")) >= 10);
    // The MApp and TFRC senders at Time::MAX (an endless loop each) and two TFRC decodings.
    assert!(replay(&fuzz.join("regressions")) >= 4);
}

#[test]
fn every_target_takes_the_empty_input_and_short_noise() {
    for t in TARGETS {
        (t.run)(&[]);
        // A pair target runs two ends for some 130 simulated seconds per input (about 30 ms for
        // the RTP pairs): every eighth length of the same range, lest these inputs take most of
        // the crate's test time; the corpus and the fuzz runs cover the pairs beyond this.
        let step = if t.name.contains("pair") { 8 } else { 1 };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for len in (0..200).step_by(step) {
            let noise: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            (t.run)(&noise);
        }
    }
}
