//! Unsigned integers appended in decimal without the `fmt` machinery, which costs several times
//! more: output files hold millions of numbers, and a 10 000-entry `count` group in a scenario
//! writes its index into every entry's names.

/// Appends `n` in decimal.
pub fn push_u64(s: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Digit by digit: `str::from_utf8` would check bytes known to be ASCII digits.
    s.reserve(buf.len() - i);
    for &d in &buf[i..] {
        s.push(d as char);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn like_display() {
        for n in [0, 7, 10, 99, 1_000, 123_456_789, u64::MAX] {
            let mut s = String::from("x");
            super::push_u64(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }
}
