//! `fairway-fuzz --make-seeds` writes valid messages of each wire format into the decoders'
//! corpora.
//!
//! `fairway-fuzz [TARGET ...] [--seconds N] [--seed S] [--corpus DIR]`: mutates each target's
//! corpus (DIR/<target>/, default fuzz/corpus) for N seconds (default 10) and stops at the first
//! input that panics, which it saves as DIR/../findings/<target>-<hash> and prints. Inputs that
//! reach new (target, outcome, length class) buckets are not tracked: the mutations are blind,
//! which on these small formats finds what coverage guidance would, given the seeds.
//!
//! Deterministic for a seed, so a finding can be reproduced by its input file alone:
//! `fairway-fuzz TARGET --replay FILE` runs it once, with the panic's message and place, and
//! `cargo test -p fairway-fuzz` replays every file of the corpus and of fuzz/regressions/.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use fairway_core::Rng;
use fairway_fuzz::{target, Target, TARGETS};

fn main() -> ExitCode {
    let mut names = vec![];
    let mut seconds = 10.0;
    let mut seed = 1;
    let mut corpus = PathBuf::from("fuzz/corpus");
    let mut replay = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |flag: &str| args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match a.as_str() {
            "--seconds" => seconds = value("--seconds").parse().unwrap_or_else(|_| usage("--seconds: a number")),
            "--seed" => seed = value("--seed").parse().unwrap_or_else(|_| usage("--seed: an integer")),
            "--corpus" => corpus = PathBuf::from(value("--corpus")),
            "--replay" => replay = Some(PathBuf::from(value("--replay"))),
            "--make-seeds" => {
                for (name, b) in fairway_fuzz::decoder_seeds() {
                    let dir = corpus.join(name);
                    let _ = std::fs::create_dir_all(&dir);
                    let path = dir.join(format!("seed-{:016x}", fnv(&b)));
                    std::fs::write(&path, &b).unwrap_or_else(|e| usage(&format!("{}: {e}", path.display())));
                }
                return ExitCode::SUCCESS;
            }
            "-h" | "--help" => usage(""),
            name => names.push(target(name).unwrap_or_else(|| usage(&format!("no target `{name}`")))),
        }
    }
    if let Some(file) = replay {
        // One input, once, through each target named, with the panic's message and place shown.
        let input = std::fs::read(&file).unwrap_or_else(|e| usage(&format!("{}: {e}", file.display())));
        if names.is_empty() {
            usage("--replay needs a target");
        }
        for t in names {
            (t.run)(&input);
            println!("{:<16} no finding", t.name);
        }
        return ExitCode::SUCCESS;
    }
    if names.is_empty() {
        names = TARGETS.iter().collect();
    }
    // The panics are the findings: keep the default hook's message off the terminal.
    std::panic::set_hook(Box::new(|_| {}));
    let per_target = Duration::from_secs_f64(seconds / names.len() as f64);
    for t in names {
        match fuzz(t, &corpus, per_target, seed) {
            Ok(n) => println!("{:<16} {n:>9} inputs, no finding", t.name),
            Err((input, msg)) => {
                let dir = corpus.parent().unwrap_or(Path::new(".")).join("findings");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("{}-{:016x}", t.name, fnv(&input)));
                let _ = std::fs::write(&path, &input);
                println!("{:<16} FINDING: {msg}\n  input saved to {}", t.name, path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ! {
    if !problem.is_empty() {
        eprintln!("error: {problem}");
    }
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    eprintln!("usage: fairway-fuzz [TARGET ...] [--seconds N] [--seed S] [--corpus DIR]\n       fairway-fuzz TARGET ... --replay FILE\ntargets: {}", names.join(" "));
    std::process::exit(2);
}

/// Runs mutations of the target's corpus until `budget` is spent; the number of inputs tried,
/// or the first that panicked with its message.
fn fuzz(t: &Target, corpus: &Path, budget: Duration, seed: u64) -> Result<u64, (Vec<u8>, String)> {
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(corpus.join(t.name))
        .map(|d| d.flatten().filter_map(|e| std::fs::read(e.path()).ok()).collect())
        .unwrap_or_default();
    seeds.sort();
    if seeds.is_empty() {
        seeds.push(vec![]);
    }
    let mut rng = Rng::from_seed(seed ^ fnv(t.name.as_bytes()));
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < budget {
        for _ in 0..64 {
            let base = &seeds[rng.below(seeds.len() as u64) as usize];
            let other = &seeds[rng.below(seeds.len() as u64) as usize];
            let input = mutate(base, other, &mut rng);
            n += 1;
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| (t.run)(&input))) {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                return Err((input, msg));
            }
        }
    }
    Ok(n)
}

/// One to eight random changes: bytes flipped, set to edge values, inserted, removed, copied
/// from another corpus entry.
fn mutate(base: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = base.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = |rng: &mut Rng, len: usize| rng.below(len as u64 + 1) as usize;
        match rng.below(7) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len() as u64) as usize;
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len() as u64) as usize;
                b[i] = [0, 1, 0x7F, 0x80, 0xFF, b'F', b'W', 2][rng.below(8) as usize];
            }
            2 => {
                let i = at(rng, b.len());
                let n = 1 + rng.below(8) as usize;
                for _ in 0..n {
                    b.insert(i, rng.next_u64() as u8);
                }
            }
            3 if !b.is_empty() => {
                let i = rng.below(b.len() as u64) as usize;
                let n = (1 + rng.below(8) as usize).min(b.len() - i);
                b.drain(i..i + n);
            }
            4 if !other.is_empty() => {
                let from = rng.below(other.len() as u64) as usize;
                let n = (1 + rng.below(32) as usize).min(other.len() - from);
                let i = at(rng, b.len());
                b.splice(i..i, other[from..from + n].iter().copied());
            }
            5 if b.len() >= 4 => {
                let i = rng.below(b.len() as u64 - 3) as usize;
                let v: [u8; 4] = [0u32, 1, u32::MAX, 1 << 31][rng.below(4) as usize].to_be_bytes();
                b[i..i + 4].copy_from_slice(&v);
            }
            _ => {
                let n = rng.below(16) as usize;
                b.extend((0..n).map(|_| rng.next_u64() as u8));
            }
        }
    }
    b.truncate(4096);
    b
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3))
}
