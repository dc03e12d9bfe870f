// The build's identity, as the command's: see crates/fairway-cli/build.rs.
include!("../crates/fairway-cli/build.rs");
