//! `fairway plot`: a sweep's or replications' folder drawn, a measure against a swept setting (or
//! per flow), as SVG and, if asked, PNG or PDF.

use std::path::Path;

use anyhow::Context;
use fairway_report::output;

use crate::Failure;

pub(crate) fn plot(
    dir: &Path,
    req: &output::sweep_plot::PlotRequest,
    formats: &[output::convert::Format],
) -> Result<(), Failure> {
    output::convert::available(formats).map_err(Failure::Input)?;
    let (path, svg) = output::sweep_plot::plot(dir, req).map_err(Failure::Input)?;
    std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
    let mut written = vec![path.clone()];
    written.extend(output::convert::convert(&path, formats).map_err(anyhow::Error::new)?);
    for w in written {
        println!("{}", w.display());
    }
    Ok(())
}
