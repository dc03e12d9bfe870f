//! RFC 8699 §5.3.1's steps worked by hand on small groups.

use super::*;

const M: f64 = 1e6;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// Step (1): registration adds FSE_R(f) to S_CR and nothing else.
#[test]
fn registration_adds_the_initial_rate_to_the_sum() {
    let mut fse = Fse::new();
    let a = fse.register(2.0, 0.15 * M, 1.5 * M);
    let b = fse.register(1.0, 0.15 * M, 1.5 * M);
    assert!(close(fse.sum(), 0.3 * M));
    assert_eq!(fse.rate(a), Some(0.15 * M));
    assert_eq!(fse.rate(b), Some(0.15 * M));
    assert_eq!(fse.updates(), 0);
}

/// Step (3): S_CR = 0.3 + 0.21 - 0.15 = 0.36 Mb/s, shared 2:1 as 0.24 and 0.12.
#[test]
fn an_update_folds_the_change_into_the_sum_and_shares_it_by_priority() {
    let mut fse = Fse::new();
    let a = fse.register(2.0, 0.15 * M, 1.5 * M);
    let b = fse.register(1.0, 0.15 * M, 1.5 * M);
    let r = fse.update(a, 0.21 * M, 1.5 * M);
    assert!(close(fse.sum(), 0.36 * M));
    assert!(close(r, 0.24 * M));
    assert!(close(fse.rate(b).unwrap(), 0.12 * M));
    // b's controller, now at 0.12, lowers it to 0.09: S_CR = 0.36 + 0.09 - 0.12 = 0.33, shared
    // as 0.22 and 0.11.
    let r = fse.update(b, 0.09 * M, 1.5 * M);
    assert!(close(fse.sum(), 0.33 * M));
    assert!(close(r, 0.11 * M));
    assert!(close(fse.rate(a).unwrap(), 0.22 * M));
}

/// RFC 8867 §6.1's three flows at priorities 2, 1, 1 with 3.44 Mb/s among them: 2:1:1 would
/// give S1 1.72 Mb/s, above its 1.5 Mb/s maximum, so S1 gets 1.5 and S2, S3 share the other
/// 1.94 equally (0.97 each): a ratio of 1.5 / 0.97 = 1.546.
#[test]
fn a_flow_whose_share_passes_its_desired_rate_gets_that_and_the_rest_is_shared() {
    let mut fse = Fse::new();
    let s1 = fse.register(2.0, 0.15 * M, 1.5 * M);
    let s2 = fse.register(1.0, 0.2 * M, 1.5 * M);
    let s3 = fse.register(1.0, 0.2 * M, 1.5 * M);
    // S_CR = 0.55 + 3.04 - 0.15 = 3.44.
    fse.update(s1, 3.04 * M, 1.5 * M);
    assert!(close(fse.sum(), 3.44 * M));
    assert!(close(fse.rate(s1).unwrap(), 1.5 * M));
    assert!(close(fse.rate(s2).unwrap(), 0.97 * M));
    assert!(close(fse.rate(s3).unwrap(), 0.97 * M));
}

/// A cap found late in a pass: the flows before it were looked at with the larger leftover, so
/// the pass repeats. Priorities 1, 1, 2, desired 10, 10, 1; S_CR = 9: the first pass finds
/// shares of 2.25, 2.25 and 4.5 and caps the third at 1; the second caps none, and the two
/// uncapped share the 8 left, 4 each (the RFC's literal loop would stop at 2.25 each).
#[test]
fn passes_repeat_until_none_caps_a_flow() {
    let mut fse = Fse::new();
    let a = fse.register(1.0, 3.0, 10.0);
    let b = fse.register(1.0, 3.0, 10.0);
    let c = fse.register(2.0, 3.0, 1.0);
    fse.update(a, 3.0, 10.0);
    assert!(close(fse.rate(a).unwrap(), 4.0));
    assert!(close(fse.rate(b).unwrap(), 4.0));
    assert!(close(fse.rate(c).unwrap(), 1.0));
}

/// Every flow capped: each gets its desired rate and the surplus is left unassigned.
#[test]
fn a_sum_above_every_desired_rate_gives_each_its_desired_rate() {
    let mut fse = Fse::new();
    let a = fse.register(2.0, 1.0, 1.5);
    let b = fse.register(1.0, 1.0, 1.0);
    fse.update(a, 4.0, 1.5);
    assert!(close(fse.sum(), 5.0));
    assert_eq!(fse.rate(a), Some(1.5));
    assert_eq!(fse.rate(b), Some(1.0));
}

/// Step (2): a flow that leaves takes its FSE_R off S_CR (the module's choice); the next update
/// shares what is left among the flows that remain.
#[test]
fn a_flow_that_leaves_takes_its_rate_with_it() {
    let mut fse = Fse::new();
    let a = fse.register(1.0, 1.0, 10.0);
    let b = fse.register(1.0, 1.0, 10.0);
    let c = fse.register(2.0, 1.0, 10.0);
    fse.update(a, 1.0, 10.0);
    // S_CR = 3: 0.75, 0.75, 1.5.
    assert!(close(fse.rate(c).unwrap(), 1.5));
    fse.deregister(c);
    assert!(close(fse.sum(), 1.5));
    let r = fse.update(b, 0.75, 10.0);
    assert!(close(r, 0.75));
    assert!(close(fse.rate(a).unwrap(), 0.75));
    assert_eq!(fse.rate(c), None);
}

/// A member sees each redistribution once (step (d)), and the one that made it does not see
/// its own again.
#[test]
fn a_member_takes_each_new_rate_once() {
    let fse: SharedFse = Arc::new(Mutex::new(Fse::new()));
    let mut a = FseMember::new(fse.clone(), 2.0).unwrap();
    let mut b = FseMember::new(fse.clone(), 1.0).unwrap();
    a.join(0.3 * M, 1.5 * M);
    b.join(0.3 * M, 1.5 * M);
    assert_eq!(b.pending(), None);
    // a's controller at the rate it runs on is no new rate: nothing is exchanged.
    assert_eq!(a.update(0.3 * M, 1.5 * M), 0.3 * M);
    assert_eq!(b.pending(), None);
    // S_CR = 0.6 + 0.36 - 0.3 = 0.66, shared 0.44 and 0.22.
    let r = a.update(0.36 * M, 1.5 * M);
    assert!(close(r, 0.44 * M));
    assert_eq!(a.pending(), None);
    assert!(close(b.pending().unwrap(), 0.22 * M));
    assert_eq!(b.pending(), None);
    // b pauses and comes back at 0.25: S_CR 0.44, then 0.69.
    b.leave();
    assert!(close(fse.lock().unwrap().sum(), 0.44 * M));
    b.join(0.25 * M, 1.5 * M);
    assert!(close(fse.lock().unwrap().sum(), 0.69 * M));
    drop(a);
    assert_eq!(fse.lock().unwrap().len(), 1);
}

#[test]
fn a_priority_must_be_above_zero() {
    let fse: SharedFse = Arc::new(Mutex::new(Fse::new()));
    assert!(FseMember::new(fse.clone(), 0.0).is_err());
    assert!(FseMember::new(fse, f64::NAN).is_err());
}
