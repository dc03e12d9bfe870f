//! The key a flow's two ends share, and the tag it puts on every datagram: HMAC-SHA256 (RFC 2104
//! over FIPS 180-4) of the datagram, truncated to its first [`TAG_LEN`] bytes (RFC 2104 §5 allows
//! a truncation to at least half the hash and at least 80 bits).
//!
//! A flow is bound to its sender by the key, not by its number or its address: a receiver takes
//! only datagrams whose tag its key reproduces, so a host that can send datagrams to it but does
//! not know the key cannot start, steer or end the flow (docs/live.md says what a host on the
//! path can still do).

use std::fmt;
use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Bytes of key; its text is twice as many hexadecimal digits.
pub const KEY_LEN: usize = 32;
/// Bytes of tag on a datagram.
pub const TAG_LEN: usize = 16;

/// A key, ready to tag: the HMAC state after the key is absorbed, cloned for each datagram.
#[derive(Clone)]
pub struct Key {
    bytes: [u8; KEY_LEN],
    mac: Hmac<Sha256>,
}

/// Why a key's text is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadKey(pub String);

impl fmt::Display for BadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadKey {}

impl Key {
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Key {
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(&bytes).expect("HMAC takes a key of any length");
        Key { bytes, mac }
    }

    /// A key nobody else can know, from the kernel's random source.
    pub fn fresh() -> std::io::Result<Key> {
        let mut b = [0u8; KEY_LEN];
        random_bytes(&mut b)?;
        Ok(Key::from_bytes(b))
    }

    /// A key from its text: [`KEY_LEN`] bytes as hexadecimal digits, with whitespace around them
    /// allowed (a key file's newline).
    pub fn parse(text: &str) -> Result<Key, BadKey> {
        let t = text.trim();
        if t.len() != 2 * KEY_LEN {
            return Err(BadKey(format!(
                "a key is {} hexadecimal digits ({KEY_LEN} bytes; `fairway key` makes one); this one has {} characters",
                2 * KEY_LEN,
                t.chars().count()
            )));
        }
        let mut b = [0u8; KEY_LEN];
        for (i, pair) in t.as_bytes().chunks(2).enumerate() {
            let digit = |c: u8| (c as char).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(h), Some(l)) => b[i] = (h * 16 + l) as u8,
                _ => return Err(BadKey("a key is hexadecimal digits only (0-9, a-f)".into())),
            }
        }
        Ok(Key::from_bytes(b))
    }

    /// A key from a file holding its text.
    pub fn read(path: &Path) -> Result<Key, BadKey> {
        // A key file is 65 bytes; reading a little more tells a wrong file from a long key.
        let text = std::fs::read(path).map_err(|e| BadKey(format!("{}: {e}", path.display())))?;
        let text = String::from_utf8(text).map_err(|_| BadKey(format!("{}: not a key (not text)", path.display())))?;
        Key::parse(&text).map_err(|e| BadKey(format!("{}: {e}", path.display())))
    }

    /// The key's text.
    pub fn hex(&self) -> String {
        self.bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The tag of `parts` (one message, in order).
    pub fn tag(&self, parts: &[&[u8]]) -> [u8; TAG_LEN] {
        let mut m = self.mac.clone();
        for p in parts {
            m.update(p);
        }
        let full = m.finalize().into_bytes();
        let mut t = [0u8; TAG_LEN];
        t.copy_from_slice(&full[..TAG_LEN]);
        t
    }

    /// Whether `tag` is that of `parts`, compared in constant time (a timing difference would
    /// let an attacker find a tag byte by byte).
    pub fn verify(&self, parts: &[&[u8]], tag: &[u8]) -> bool {
        let mut m = self.mac.clone();
        for p in parts {
            m.update(p);
        }
        m.verify_truncated_left(tag).is_ok()
    }
}

/// Fills `b` from the kernel's random source (getrandom), which no peer can predict.
pub fn random_bytes(b: &mut [u8]) -> std::io::Result<()> {
    let mut got = 0;
    while got < b.len() {
        // SAFETY: getrandom writes at most `b.len() - got` bytes from `b[got..]`.
        let n = unsafe { libc::getrandom(b[got..].as_mut_ptr() as *mut libc::c_void, b.len() - got, 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        } else {
            got += n as usize;
        }
    }
    Ok(())
}

impl fmt::Debug for Key {
    /// A key is not printed by accident (in a panic, a log).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_is_rfc_4231s_hmac_sha256_truncated() {
        // RFC 4231 §4.3, test case 2: key "Jefe", data "what do ya want for nothing?", whose
        // HMAC-SHA-256 begins 5bdcc146bf60754e6a042426089575c7. Our keys are 32 bytes: "Jefe"
        // padded with zeros is the same HMAC key (RFC 2104 §2 pads a short key with zeros).
        let mut k = [0u8; KEY_LEN];
        k[..4].copy_from_slice(b"Jefe");
        let key = Key::from_bytes(k);
        let t = key.tag(&[b"what do ya ", b"want for nothing?"]);
        let hex: String = t.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "5bdcc146bf60754e6a042426089575c7");
        assert!(key.verify(&[b"what do ya want for nothing?"], &t));
        let mut bad = t;
        bad[15] ^= 1;
        assert!(!key.verify(&[b"what do ya want for nothing?"], &bad));
        assert!(!key.verify(&[b"what do ya want for nothing!"], &t));
    }

    #[test]
    fn keys_read_back_from_their_text_and_bad_text_is_named() {
        let k = Key::fresh().unwrap();
        let again = Key::parse(&format!("{}\n", k.hex())).unwrap();
        assert_eq!(again.hex(), k.hex());
        assert_ne!(Key::fresh().unwrap().hex(), k.hex(), "fresh keys differ");
        assert!(Key::parse("abc").unwrap_err().0.contains("64 hexadecimal digits"));
        assert!(Key::parse(&"g".repeat(64)).unwrap_err().0.contains("hexadecimal digits only"));
        assert!(Key::parse(&"é".repeat(32)).is_err());
        assert_eq!(format!("{k:?}"), "Key(..)");
    }
}
