//! A link's `loss` key: a number is a Bernoulli probability (as it always was); a table names a
//! model of fairway-model's `loss_model` and its parameters (docs/scenarios.md, `[[link]]`).
//!
//! ```toml
//! loss = 0.01                                                    # Bernoulli
//! loss = { model = "bernoulli", p = 0.01 }                       # the same
//! loss = { model = "gilbert-elliott", p = 0.01, r = 0.3 }        # h = 0, k = 1
//! loss = { model = "gilbert-elliott", p = 0.01, r = 0.3, h = 0.2, k = 0.999 }
//! loss = { model = "gilbert-elliott", mean_loss = 0.02, mean_burst = 4 }
//! ```

use fairway_model::loss_model::{GilbertElliott, LossModel};

use crate::reader::{Res, Tbl, Val};

/// The models a `loss` table may name.
pub const LOSS_MODELS: &[&str] = &["bernoulli", "gilbert-elliott"];
const BERNOULLI_KEYS: &[&str] = &["model", "p"];
const GILBERT_ELLIOTT_KEYS: &[&str] = &["model", "p", "r", "k", "h", "mean_loss", "mean_burst"];

/// The link's loss model from its `loss` value.
pub fn parse_loss(v: &Val) -> Res<LossModel> {
    if !v.is_table() {
        return Ok(LossModel::Bernoulli(probability(v)?));
    }
    let t = v.table()?;
    let model = t.req("model")?;
    let name = model.string()?;
    let loss = match name.as_str() {
        "bernoulli" => {
            let p = probability(&t.req("p")?)?;
            t.finish(BERNOULLI_KEYS)?;
            LossModel::Bernoulli(p)
        }
        "gilbert-elliott" => {
            let chain = gilbert_elliott(&t)?;
            t.finish(GILBERT_ELLIOTT_KEYS)?;
            LossModel::GilbertElliott(chain)
        }
        _ => {
            return Err(model.error(format!("unknown loss model `{name}`; accepted: {}", LOSS_MODELS.join(", "))));
        }
    };
    Ok(loss)
}

/// A Gilbert-Elliott table: `p` and `r`, or `mean_loss` and `mean_burst` (not both pairs);
/// `k` and `h` default to Gilbert's 1 and 0 (see `GilbertElliott::K_DEFAULT`).
fn gilbert_elliott(t: &Tbl) -> Res<GilbertElliott> {
    let opt = |key: &str| t.get(key).map(|v| probability(&v)).transpose();
    let k = opt("k")?.unwrap_or(GilbertElliott::K_DEFAULT);
    let h = opt("h")?.unwrap_or(GilbertElliott::H_DEFAULT);
    let by_rate = t.has("mean_loss") || t.has("mean_burst");
    if by_rate {
        if let Some(key) = ["p", "r"].into_iter().find(|k| t.has(k)) {
            return Err(t
                .req(key)?
                .error("give the chain as `p` and `r`, or as `mean_loss` and `mean_burst`, not both"));
        }
        let mean_loss = probability(&t.req("mean_loss")?)?;
        let mean_burst = t.req("mean_burst")?.f64()?;
        // The rest of the checks need all four numbers: they are reported at the table.
        GilbertElliott::from_mean_loss(mean_loss, mean_burst, k, h).map_err(|e| t.error(e))
    } else {
        let p = probability(&t.req("p")?)?;
        let r = probability(&t.req("r")?)?;
        // Each is a probability already (checked where it is written).
        GilbertElliott::new(p, r, k, h).map_err(|e| t.error(e))
    }
}

/// A number in [0, 1], located where it is written.
fn probability(v: &Val) -> Res<f64> {
    let p = v.f64()?;
    if !(0.0..=1.0).contains(&p) {
        return Err(v.error(format!("{p} is not a probability (0 to 1)")));
    }
    Ok(p)
}
