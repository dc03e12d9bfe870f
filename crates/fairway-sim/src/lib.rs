//! fairway-sim (being written)
