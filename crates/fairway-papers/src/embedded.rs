//! The scenario files of the reproductions and of RFC 8867's test cases, built into the binary so that `fairway reproduce`
//! runs from any directory. `--scenarios DIR` reads edited copies from disk instead.

/// (paper, [(file stem, text)]): every file of scenarios/<paper>/.
pub const FILES: &[(&str, &[(&str, &str)])] = &[
    (
        "kadhum2015",
        &[
            ("mapp-ftp", include_str!("../../../scenarios/kadhum2015/mapp-ftp.toml")),
            ("cbr-ftp", include_str!("../../../scenarios/kadhum2015/cbr-ftp.toml")),
            ("mapp-ftp-red-packets", include_str!("../../../scenarios/kadhum2015/mapp-ftp-red-packets.toml")),
            ("cbr-ftp-red-packets", include_str!("../../../scenarios/kadhum2015/cbr-ftp-red-packets.toml")),
            ("cbr-ftp-0.8mb", include_str!("../../../scenarios/kadhum2015/cbr-ftp-0.8mb.toml")),
            ("cbr-ftp-1.6mb", include_str!("../../../scenarios/kadhum2015/cbr-ftp-1.6mb.toml")),
            ("mapp-ftp-web", include_str!("../../../scenarios/kadhum2015/mapp-ftp-web.toml")),
            ("cbr-ftp-web", include_str!("../../../scenarios/kadhum2015/cbr-ftp-web.toml")),
            ("mapp-ftp-appendix-links", include_str!("../../../scenarios/kadhum2015/mapp-ftp-appendix-links.toml")),
        ],
    ),
    (
        "elaarag2002",
        &[
            ("fig5", include_str!("../../../scenarios/elaarag2002/fig5.toml")),
            ("fig6-table1", include_str!("../../../scenarios/elaarag2002/fig6-table1.toml")),
            ("fig6-newreno", include_str!("../../../scenarios/elaarag2002/fig6-newreno.toml")),
            ("table2-3", include_str!("../../../scenarios/elaarag2002/table2-3.toml")),
            ("table2-3-buffer", include_str!("../../../scenarios/elaarag2002/table2-3-buffer.toml")),
            ("table2-3-frames", include_str!("../../../scenarios/elaarag2002/table2-3-frames.toml")),
            ("table2-3-noreset", include_str!("../../../scenarios/elaarag2002/table2-3-noreset.toml")),
            ("table4", include_str!("../../../scenarios/elaarag2002/table4.toml")),
            ("extended", include_str!("../../../scenarios/elaarag2002/extended.toml")),
            ("section5-ideal", include_str!("../../../scenarios/elaarag2002/section5-ideal.toml")),
            ("section5-loss", include_str!("../../../scenarios/elaarag2002/section5-loss.toml")),
            ("section5-worst", include_str!("../../../scenarios/elaarag2002/section5-worst.toml")),
        ],
    ),
    (
        "janani-tfrc",
        &[
            ("videoconf-tcp", include_str!("../../../scenarios/janani-tfrc/videoconf-tcp.toml")),
            ("videoconf-tcp-greedy", include_str!("../../../scenarios/janani-tfrc/videoconf-tcp-greedy.toml")),
            ("videoconf-udp", include_str!("../../../scenarios/janani-tfrc/videoconf-udp.toml")),
            ("videoconf-udp-greedy", include_str!("../../../scenarios/janani-tfrc/videoconf-udp-greedy.toml")),
            ("videostream-tcp", include_str!("../../../scenarios/janani-tfrc/videostream-tcp.toml")),
            ("videostream-tcp-greedy", include_str!("../../../scenarios/janani-tfrc/videostream-tcp-greedy.toml")),
            ("videostream-udp", include_str!("../../../scenarios/janani-tfrc/videostream-udp.toml")),
            ("videostream-udp-greedy", include_str!("../../../scenarios/janani-tfrc/videostream-udp-greedy.toml")),
            ("voip-tcp", include_str!("../../../scenarios/janani-tfrc/voip-tcp.toml")),
            ("voip-tcp-greedy", include_str!("../../../scenarios/janani-tfrc/voip-tcp-greedy.toml")),
            ("voip-udp", include_str!("../../../scenarios/janani-tfrc/voip-udp.toml")),
            ("voip-udp-greedy", include_str!("../../../scenarios/janani-tfrc/voip-udp-greedy.toml")),
            ("wireless-videoconf-tcp", include_str!("../../../scenarios/janani-tfrc/wireless-videoconf-tcp.toml")),
            (
                "wireless-videoconf-tcp-greedy",
                include_str!("../../../scenarios/janani-tfrc/wireless-videoconf-tcp-greedy.toml"),
            ),
            ("wireless-voip-udp", include_str!("../../../scenarios/janani-tfrc/wireless-voip-udp.toml")),
            ("wireless-voip-tcp", include_str!("../../../scenarios/janani-tfrc/wireless-voip-tcp.toml")),
            ("wireless-voip-tcp-greedy", include_str!("../../../scenarios/janani-tfrc/wireless-voip-tcp-greedy.toml")),
            ("wireless-videoconf-udp", include_str!("../../../scenarios/janani-tfrc/wireless-videoconf-udp.toml")),
            (
                "wireless-videoconf-udp-greedy",
                include_str!("../../../scenarios/janani-tfrc/wireless-videoconf-udp-greedy.toml"),
            ),
            ("wireless-videostream-udp", include_str!("../../../scenarios/janani-tfrc/wireless-videostream-udp.toml")),
            (
                "wireless-videostream-udp-greedy",
                include_str!("../../../scenarios/janani-tfrc/wireless-videostream-udp-greedy.toml"),
            ),
            ("wireless-voip-udp-greedy", include_str!("../../../scenarios/janani-tfrc/wireless-voip-udp-greedy.toml")),
        ],
    ),
    (
        "chung-dcbt",
        &[
            ("fig6-red", include_str!("../../../scenarios/chung-dcbt/fig6-red.toml")),
            ("fig6-cbt", include_str!("../../../scenarios/chung-dcbt/fig6-cbt.toml")),
            ("fig9-flow-control", include_str!("../../../scenarios/chung-dcbt/fig9-flow-control.toml")),
            ("fig9-no-flow-control", include_str!("../../../scenarios/chung-dcbt/fig9-no-flow-control.toml")),
            ("fig11-red", include_str!("../../../scenarios/chung-dcbt/fig11-red.toml")),
            ("fig11-cbt", include_str!("../../../scenarios/chung-dcbt/fig11-cbt.toml")),
            ("fig11-dcbt", include_str!("../../../scenarios/chung-dcbt/fig11-dcbt.toml")),
        ],
    ),
    (
        "dccp-ns2",
        &[
            ("tcp", include_str!("../../../scenarios/dccp-ns2/tcp.toml")),
            ("ccid2", include_str!("../../../scenarios/dccp-ns2/ccid2.toml")),
            ("ccid3", include_str!("../../../scenarios/dccp-ns2/ccid3.toml")),
        ],
    ),
    // RFC 8867's test cases, which `fairway suite rmcat` runs, in section order.
    (
        "rfc8867",
        &[
            ("5.1-variable-capacity", include_str!("../../../scenarios/rfc8867/5.1-variable-capacity.toml")),
            (
                "5.2-variable-capacity-multiple-flows",
                include_str!("../../../scenarios/rfc8867/5.2-variable-capacity-multiple-flows.toml"),
            ),
            (
                "5.3-congested-feedback-link",
                include_str!("../../../scenarios/rfc8867/5.3-congested-feedback-link.toml"),
            ),
            ("5.4-competing-same-cc", include_str!("../../../scenarios/rfc8867/5.4-competing-same-cc.toml")),
            ("5.5-rtt-fairness", include_str!("../../../scenarios/rfc8867/5.5-rtt-fairness.toml")),
            ("5.6-long-tcp-flow", include_str!("../../../scenarios/rfc8867/5.6-long-tcp-flow.toml")),
            ("5.6-long-tcp-flow-cubic", include_str!("../../../scenarios/rfc8867/5.6-long-tcp-flow-cubic.toml")),
            ("5.7-short-tcp-flows", include_str!("../../../scenarios/rfc8867/5.7-short-tcp-flows.toml")),
            ("5.8-pause-resume", include_str!("../../../scenarios/rfc8867/5.8-pause-resume.toml")),
            ("6.1-priorities", include_str!("../../../scenarios/rfc8867/6.1-priorities.toml")),
            ("6.2-ecn", include_str!("../../../scenarios/rfc8867/6.2-ecn.toml")),
            ("6.3-multiple-bottlenecks", include_str!("../../../scenarios/rfc8867/6.3-multiple-bottlenecks.toml")),
        ],
    ),
    // Validation scenarios a report shows beside a paper's (checked against ns-2 by the
    // validation suite).
    (
        "validation",
        &[("elaarag2002-fig6-reno", include_str!("../../../scenarios/validation/elaarag2002-fig6-reno.toml"))],
    ),
];

/// The stems of scenarios/<paper>/, in their order here.
pub fn stems(paper: &str) -> Vec<&'static str> {
    FILES.iter().find(|(p, _)| *p == paper).map_or(vec![], |(_, f)| f.iter().map(|(s, _)| *s).collect())
}

/// The built-in text of scenarios/<paper>/<stem>.toml.
pub fn file(paper: &str, stem: &str) -> Option<&'static str> {
    FILES.iter().find(|(p, _)| *p == paper)?.1.iter().find(|(s, _)| *s == stem).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// Every file of each paper's folder is built in, and nothing else: a file added to the
    /// folder and not here would be missing from `fairway reproduce` run elsewhere. (Of
    /// validation/, only what a report uses.)
    #[test]
    fn every_scenario_file_of_a_paper_is_built_in() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        for (paper, files) in FILES.iter().filter(|(p, _)| *p != "validation") {
            let mut on_disk: Vec<String> = std::fs::read_dir(root.join(paper))
                .unwrap()
                .filter_map(|e| {
                    let p = e.unwrap().path();
                    (p.extension()? == "toml").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
                })
                .collect();
            on_disk.sort();
            let mut built_in: Vec<String> = files.iter().map(|(s, _)| s.to_string()).collect();
            built_in.sort();
            assert_eq!(built_in, on_disk, "scenarios/{paper}/");
        }
        assert!(file("elaarag2002", "fig5").is_some_and(|t| t.contains("[sweep]")));
        assert!(file("elaarag2002", "nope").is_none() && file("nope", "fig5").is_none());
    }
}
