//! Sans-IO endpoints for congestion-aware media transport (see ../shared/DESIGN.md).
//!
//! Empty for now: the simulator foundation (issue 2) comes first; MApp/UDPm (issue 3),
//! IFTP (issue 4), TFRC and the DCCP CCIDs land here as they are built.
