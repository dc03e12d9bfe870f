//! Small integer ids shared across crates. They index arrays; they carry no meaning beyond that.

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A node of the topology.
    NodeId
);
id!(
    /// A simplex link (one direction of a duplex link).
    LinkId
);
id!(
    /// A flow as the scenario declares it (all its packets, both directions).
    FlowId
);
id!(
    /// A packet in the simulator's arena; queues hold these, not packets.
    PacketRef
);
