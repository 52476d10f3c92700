//! CRI `runtime.v1` enums.
//!
//! Proto3-JSON writes an enum as its value name; readers accept the name or the number.
//! Every enum here knows its wire number ([`CriEnum::number`]) so other encodings (crictl's
//! loader, protobuf) can use it.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::runtime::NamespaceMode;

/// A CRI enum: names and wire numbers.
pub trait CriEnum: Sized + Copy + Default + PartialEq + 'static {
    /// Every value with its proto name and number.
    const VALUES: &'static [(Self, &'static str, i32)];

    /// The wire number.
    #[must_use]
    fn number(self) -> i32 {
        Self::VALUES
            .iter()
            .find(|(v, _, _)| *v == self)
            .map_or(0, |(_, _, n)| *n)
    }

    /// The proto value name.
    #[must_use]
    fn name(self) -> &'static str {
        Self::VALUES
            .iter()
            .find(|(v, _, _)| *v == self)
            .map_or("", |(_, n, _)| n)
    }

    /// The value with this wire number, if known.
    #[must_use]
    fn from_number(n: i32) -> Option<Self> {
        Self::VALUES
            .iter()
            .find(|(_, _, num)| *num == n)
            .map(|(v, _, _)| *v)
    }

    /// The value with this proto name, if known.
    #[must_use]
    fn from_name(name: &str) -> Option<Self> {
        Self::VALUES
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(v, _, _)| *v)
    }
}

/// Serde helpers for a [`CriEnum`]: name out, name or number in.
pub(crate) mod as_name {
    use super::{de, CriEnum, Deserializer, Serializer, Visitor};
    use std::marker::PhantomData;

    /// Serialises the value name.
    pub(crate) fn serialize<T: CriEnum, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.name())
    }

    struct V<T>(PhantomData<T>);

    impl<T: CriEnum> Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an enum value name or number")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            T::from_name(s).ok_or_else(|| {
                E::custom(format!(
                    "unknown enum value {s:?}; expected one of {}",
                    T::VALUES
                        .iter()
                        .map(|(_, n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
            i32::try_from(n)
                .ok()
                .and_then(T::from_number)
                .ok_or_else(|| E::custom(format!("unknown enum number {n}")))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
            i32::try_from(n)
                .ok()
                .and_then(T::from_number)
                .ok_or_else(|| E::custom(format!("unknown enum number {n}")))
        }
        fn visit_unit<E: de::Error>(self) -> Result<T, E> {
            Ok(T::default())
        }
    }

    /// Reads a value name, a number, or `null` (the default).
    pub(crate) fn deserialize<'de, T: CriEnum, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        d.deserialize_any(V(PhantomData))
    }
}

macro_rules! cri_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal = $num:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl CriEnum for $name {
            const VALUES: &'static [(Self, &'static str, i32)] = &[$((Self::$variant, $text, $num)),+];
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                as_name::serialize(self, s)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                as_name::deserialize(d)
            }
        }
    };
}

cri_enum! {
    /// CRI `Protocol`.
    Protocol {
        /// TCP (0, the default).
        #[default]
        Tcp = "TCP" = 0,
        /// UDP (1).
        Udp = "UDP" = 1,
        /// SCTP (2).
        Sctp = "SCTP" = 2,
    }
}

cri_enum! {
    /// CRI `MountPropagation`.
    MountPropagation {
        /// `rprivate` (0, the default).
        #[default]
        Private = "PROPAGATION_PRIVATE" = 0,
        /// `rslave` (1).
        HostToContainer = "PROPAGATION_HOST_TO_CONTAINER" = 1,
        /// `rshared` (2).
        Bidirectional = "PROPAGATION_BIDIRECTIONAL" = 2,
    }
}

cri_enum! {
    /// CRI `SupplementalGroupsPolicy`.
    SupplementalGroupsPolicy {
        /// Merge with the image's groups (0, the default).
        #[default]
        Merge = "Merge" = 0,
        /// Use only the given groups (1).
        Strict = "Strict" = 1,
    }
}

cri_enum! {
    /// CRI `SecurityProfile.ProfileType`.
    ProfileType {
        /// The runtime's default profile (0, the default).
        #[default]
        RuntimeDefault = "RuntimeDefault" = 0,
        /// No profile (1).
        Unconfined = "Unconfined" = 1,
        /// A profile installed on the node (2).
        Localhost = "Localhost" = 2,
    }
}

impl CriEnum for NamespaceMode {
    const VALUES: &'static [(Self, &'static str, i32)] = &[
        (Self::Pod, "POD", 0),
        (Self::Container, "CONTAINER", 1),
        (Self::Node, "NODE", 2),
        (Self::Target, "TARGET", 3),
    ];
}

cri_enum! {
    /// CRI `Signal` (a container's stop signal).
    Signal {
        /// The runtime's default (0).
        #[default]
        RuntimeDefault = "RUNTIME_DEFAULT" = 0,
        /// SIGABRT.
        Sigabrt = "SIGABRT" = 1,
        /// SIGALRM.
        Sigalrm = "SIGALRM" = 2,
        /// SIGBUS.
        Sigbus = "SIGBUS" = 3,
        /// SIGCHLD.
        Sigchld = "SIGCHLD" = 4,
        /// SIGCLD.
        Sigcld = "SIGCLD" = 5,
        /// SIGCONT.
        Sigcont = "SIGCONT" = 6,
        /// SIGFPE.
        Sigfpe = "SIGFPE" = 7,
        /// SIGHUP.
        Sighup = "SIGHUP" = 8,
        /// SIGILL.
        Sigill = "SIGILL" = 9,
        /// SIGINT.
        Sigint = "SIGINT" = 10,
        /// SIGIO.
        Sigio = "SIGIO" = 11,
        /// SIGIOT.
        Sigiot = "SIGIOT" = 12,
        /// SIGKILL.
        Sigkill = "SIGKILL" = 13,
        /// SIGPIPE.
        Sigpipe = "SIGPIPE" = 14,
        /// SIGPOLL.
        Sigpoll = "SIGPOLL" = 15,
        /// SIGPROF.
        Sigprof = "SIGPROF" = 16,
        /// SIGPWR.
        Sigpwr = "SIGPWR" = 17,
        /// SIGQUIT.
        Sigquit = "SIGQUIT" = 18,
        /// SIGSEGV.
        Sigsegv = "SIGSEGV" = 19,
        /// SIGSTKFLT.
        Sigstkflt = "SIGSTKFLT" = 20,
        /// SIGSTOP.
        Sigstop = "SIGSTOP" = 21,
        /// SIGSYS.
        Sigsys = "SIGSYS" = 22,
        /// SIGTERM.
        Sigterm = "SIGTERM" = 23,
        /// SIGTRAP.
        Sigtrap = "SIGTRAP" = 24,
        /// SIGTSTP.
        Sigtstp = "SIGTSTP" = 25,
        /// SIGTTIN.
        Sigttin = "SIGTTIN" = 26,
        /// SIGTTOU.
        Sigttou = "SIGTTOU" = 27,
        /// SIGURG.
        Sigurg = "SIGURG" = 28,
        /// SIGUSR1.
        Sigusr1 = "SIGUSR1" = 29,
        /// SIGUSR2.
        Sigusr2 = "SIGUSR2" = 30,
        /// SIGVTALRM.
        Sigvtalrm = "SIGVTALRM" = 31,
        /// SIGWINCH.
        Sigwinch = "SIGWINCH" = 32,
        /// SIGXCPU.
        Sigxcpu = "SIGXCPU" = 33,
        /// SIGXFSZ.
        Sigxfsz = "SIGXFSZ" = 34,
        /// SIGRTMIN.
        Sigrtmin = "SIGRTMIN" = 35,
        /// SIGRTMIN+1.
        SigrtminPlus1 = "SIGRTMINPLUS1" = 36,
        /// SIGRTMIN+2.
        SigrtminPlus2 = "SIGRTMINPLUS2" = 37,
        /// SIGRTMIN+3.
        SigrtminPlus3 = "SIGRTMINPLUS3" = 38,
        /// SIGRTMIN+4.
        SigrtminPlus4 = "SIGRTMINPLUS4" = 39,
        /// SIGRTMIN+5.
        SigrtminPlus5 = "SIGRTMINPLUS5" = 40,
        /// SIGRTMIN+6.
        SigrtminPlus6 = "SIGRTMINPLUS6" = 41,
        /// SIGRTMIN+7.
        SigrtminPlus7 = "SIGRTMINPLUS7" = 42,
        /// SIGRTMIN+8.
        SigrtminPlus8 = "SIGRTMINPLUS8" = 43,
        /// SIGRTMIN+9.
        SigrtminPlus9 = "SIGRTMINPLUS9" = 44,
        /// SIGRTMIN+10.
        SigrtminPlus10 = "SIGRTMINPLUS10" = 45,
        /// SIGRTMIN+11.
        SigrtminPlus11 = "SIGRTMINPLUS11" = 46,
        /// SIGRTMIN+12.
        SigrtminPlus12 = "SIGRTMINPLUS12" = 47,
        /// SIGRTMIN+13.
        SigrtminPlus13 = "SIGRTMINPLUS13" = 48,
        /// SIGRTMIN+14.
        SigrtminPlus14 = "SIGRTMINPLUS14" = 49,
        /// SIGRTMIN+15.
        SigrtminPlus15 = "SIGRTMINPLUS15" = 50,
        /// SIGRTMAX-14.
        SigrtmaxMinus14 = "SIGRTMAXMINUS14" = 51,
        /// SIGRTMAX-13.
        SigrtmaxMinus13 = "SIGRTMAXMINUS13" = 52,
        /// SIGRTMAX-12.
        SigrtmaxMinus12 = "SIGRTMAXMINUS12" = 53,
        /// SIGRTMAX-11.
        SigrtmaxMinus11 = "SIGRTMAXMINUS11" = 54,
        /// SIGRTMAX-10.
        SigrtmaxMinus10 = "SIGRTMAXMINUS10" = 55,
        /// SIGRTMAX-9.
        SigrtmaxMinus9 = "SIGRTMAXMINUS9" = 56,
        /// SIGRTMAX-8.
        SigrtmaxMinus8 = "SIGRTMAXMINUS8" = 57,
        /// SIGRTMAX-7.
        SigrtmaxMinus7 = "SIGRTMAXMINUS7" = 58,
        /// SIGRTMAX-6.
        SigrtmaxMinus6 = "SIGRTMAXMINUS6" = 59,
        /// SIGRTMAX-5.
        SigrtmaxMinus5 = "SIGRTMAXMINUS5" = 60,
        /// SIGRTMAX-4.
        SigrtmaxMinus4 = "SIGRTMAXMINUS4" = 61,
        /// SIGRTMAX-3.
        SigrtmaxMinus3 = "SIGRTMAXMINUS3" = 62,
        /// SIGRTMAX-2.
        SigrtmaxMinus2 = "SIGRTMAXMINUS2" = 63,
        /// SIGRTMAX-1.
        SigrtmaxMinus1 = "SIGRTMAXMINUS1" = 64,
        /// SIGRTMAX.
        Sigrtmax = "SIGRTMAX" = 65,
    }
}

impl Signal {
    /// The CRI signal for a `lifecycle.stopSignal` value (`SIGRTMIN+3` → `SIGRTMINPLUS3`,
    /// `SIGRTMAX-2` → `SIGRTMAXMINUS2`); unknown names give [`Signal::RuntimeDefault`].
    #[must_use]
    pub(crate) fn from_stop_signal(s: &str) -> Self {
        if s == "RUNTIME_DEFAULT" {
            return Self::RuntimeDefault;
        }
        let wire = s.replace('+', "PLUS").replace('-', "MINUS");
        Self::from_name(&wire).unwrap_or_default()
    }
}

/// Whether a value equals its type's default (proto3 omits those).
pub(crate) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_from_stop_signal_examples() {
        assert_eq!(
            Signal::from_stop_signal("SIGRTMIN+3"),
            Signal::SigrtminPlus3
        );
        assert_eq!(Signal::from_stop_signal("SIGNOPE"), Signal::RuntimeDefault);
    }

    #[test]
    fn names_and_numbers_both_read() {
        let p: Protocol = serde_json::from_str("\"UDP\"").unwrap_or_default();
        assert_eq!(p, Protocol::Udp);
        let p: Protocol = serde_json::from_str("2").unwrap_or_default();
        assert_eq!(p, Protocol::Sctp);
        assert!(serde_json::from_str::<Protocol>("\"ICMP\"").is_err());
        assert!(serde_json::from_str::<Protocol>("7").is_err());
        assert_eq!(
            serde_json::to_string(&MountPropagation::Bidirectional).unwrap_or_default(),
            "\"PROPAGATION_BIDIRECTIONAL\""
        );
        assert_eq!(NamespaceMode::Target.number(), 3);
        assert_eq!(Signal::Sigrtmax.number(), 65);
    }
}
