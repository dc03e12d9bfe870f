//! A scenario setting's value written with a unit ("1.5Mb", "10ms", "500B") as a number in the
//! base unit: the sweep's CSVs give such a column a number twin, and figures read it for an axis.

/// The unit of a swept setting written with one ("1.5Mb", "10ms", "500B"), whose CSV column
/// gets a number twin in the base unit: text sorts "1.5Mb" before "1Mb", numbers do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingUnit {
    Bps,
    Seconds,
    Bytes,
}

impl SettingUnit {
    /// The twin column's suffix: `flow.cbr.rate` and `flow.cbr.rate_bps`.
    pub fn suffix(self) -> &'static str {
        match self {
            SettingUnit::Bps => "_bps",
            SettingUnit::Seconds => "_s",
            SettingUnit::Bytes => "_bytes",
        }
    }

    /// The unit as an axis names it.
    pub fn axis(self) -> &'static str {
        match self {
            SettingUnit::Bps => "b/s",
            SettingUnit::Seconds => "s",
            SettingUnit::Bytes => "B",
        }
    }
}

/// A setting's value written with a unit, as a number in the base unit (b/s, s, bytes), and the
/// unit. A time's units are its own; a key whose last part names a rate (`rate`, `max_rate`)
/// reads its value as a rate ("1MB" is 8 Mb/s there), any other as a size if it reads as one
/// ("500B") and else as a rate ("1Mb"). `None` for a plain number, or no value with a unit.
pub fn setting_number(key: &str, value: &str) -> Option<(f64, SettingUnit)> {
    if value.trim().parse::<f64>().is_ok() {
        return None;
    }
    if let Ok(d) = fairway_core::Dur::parse(value) {
        return Some((d.as_secs_f64(), SettingUnit::Seconds));
    }
    let rate = || fairway_core::Rate::parse(value).ok().map(|r| (r.0 as f64, SettingUnit::Bps));
    let last = key.rsplit('.').next().unwrap_or(key);
    if last.contains("rate") {
        return rate();
    }
    fairway_core::Bytes::parse(value).ok().map(|b| (b.0 as f64, SettingUnit::Bytes)).or_else(rate)
}
