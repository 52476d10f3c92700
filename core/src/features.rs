//! Feature gates: the 1.37 defaults, overridable per request.

use std::collections::BTreeMap;

/// A feature gate the engine knows, with its Kubernetes 1.37 default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Gate {
    /// Restartable init containers (GA; always on in 1.37).
    SidecarContainers,
    /// Per-container `restartPolicy` and `restartPolicyRules` (beta, on).
    ContainerRestartRules,
    /// `RestartAllContainers` restart-rule action (beta, on).
    RestartAllContainersOnContainerExits,
    /// In-place resize (GA, locked on).
    InPlacePodVerticalScaling,
    /// In-place resize of init containers (GA in 1.37, locked on).
    InPlacePodVerticalScalingInitContainers,
    /// In-place resize of pod-level resources (beta, on).
    InPlacePodLevelResourcesVerticalScaling,
    /// Resize of memory-backed emptyDir volumes (alpha, off).
    InPlacePodVerticalScalingMemoryBackedVolumes,
    /// Pod-level resources (beta, on).
    PodLevelResources,
    /// Configurable crash-loop back-off maximum (beta, on).
    KubeletCrashLoopBackOffMax,
    /// 1 s initial / 60 s maximum crash-loop back-off (alpha, off).
    ReduceDefaultCrashLoopBackOffDecay,
    /// Dynamic resource allocation (GA).
    DynamicResourceAllocation,
    /// Node-declared features (beta, on); accepted, no effect on decisions.
    NodeDeclaredFeatures,
    /// CPU CFS quota off for exclusive CPUs (beta, on).
    DisableCPUQuotaWithExclusiveCPUs,
    /// Custom CFS quota period (alpha, off).
    CustomCPUCFSQuotaPeriod,
    /// cgroup v2 memory QoS (beta, on in 1.37; writes nothing unless the kubelet sets
    /// `memoryThrottlingFactor` or `memoryReservationPolicy`).
    MemoryQoS,
    /// Swap support (GA).
    NodeSwap,
    /// User namespaces (beta, on).
    UserNamespacesSupport,
    /// `supplementalGroupsPolicy` (GA in 1.35, on).
    SupplementalGroupsPolicy,
    /// `procMount` (beta, on).
    ProcMountType,
    /// Recursive read-only mounts (GA).
    RecursiveReadOnlyMounts,
    /// Image volumes (beta, on in 1.35+).
    ImageVolume,
    /// Container stop signals (alpha, off).
    ContainerStopSignals,
    /// Runtime class in CRI image API (alpha, off).
    RuntimeClassInImageCriAPI,
    /// Env var files (`fileKeyRef`, beta, on since 1.35).
    EnvFiles,
    /// `spec.hostnameOverride` (beta, on since 1.35).
    HostnameOverride,
    /// Host network for Windows host-process containers; no effect on Linux.
    WindowsHostNetwork,
    /// Verify the pod's credentials before it uses a present image that the kubelet pulled
    /// with other credentials (beta, on since 1.35).
    KubeletEnsureSecretPulledImages,
    /// The `PodReadyToStartContainers` pod condition (GA, on).
    PodReadyToStartContainersCondition,
    /// `observedGeneration` on pod conditions (GA, on).
    PodObservedGenerationTracking,
    /// Container status is not carried over across kubelet restarts (alpha, off).
    ChangeContainerStatusOnKubeletRestart,
}

/// Every known gate with its name and 1.37 default.
pub(crate) const GATES: &[(Gate, &str, bool)] = &[
    (Gate::SidecarContainers, "SidecarContainers", true),
    (Gate::ContainerRestartRules, "ContainerRestartRules", true),
    (
        Gate::RestartAllContainersOnContainerExits,
        "RestartAllContainersOnContainerExits",
        true,
    ),
    (
        Gate::InPlacePodVerticalScaling,
        "InPlacePodVerticalScaling",
        true,
    ),
    (
        Gate::InPlacePodVerticalScalingInitContainers,
        "InPlacePodVerticalScalingInitContainers",
        true,
    ),
    (
        Gate::InPlacePodLevelResourcesVerticalScaling,
        "InPlacePodLevelResourcesVerticalScaling",
        true,
    ),
    (
        Gate::InPlacePodVerticalScalingMemoryBackedVolumes,
        "InPlacePodVerticalScalingMemoryBackedVolumes",
        false,
    ),
    (Gate::PodLevelResources, "PodLevelResources", true),
    (
        Gate::KubeletCrashLoopBackOffMax,
        "KubeletCrashLoopBackOffMax",
        true,
    ),
    (
        Gate::ReduceDefaultCrashLoopBackOffDecay,
        "ReduceDefaultCrashLoopBackOffDecay",
        false,
    ),
    (
        Gate::DynamicResourceAllocation,
        "DynamicResourceAllocation",
        true,
    ),
    (Gate::NodeDeclaredFeatures, "NodeDeclaredFeatures", true),
    (
        Gate::DisableCPUQuotaWithExclusiveCPUs,
        "DisableCPUQuotaWithExclusiveCPUs",
        true,
    ),
    (
        Gate::CustomCPUCFSQuotaPeriod,
        "CustomCPUCFSQuotaPeriod",
        false,
    ),
    (Gate::MemoryQoS, "MemoryQoS", true),
    (Gate::NodeSwap, "NodeSwap", true),
    (Gate::UserNamespacesSupport, "UserNamespacesSupport", true),
    (
        Gate::SupplementalGroupsPolicy,
        "SupplementalGroupsPolicy",
        true,
    ),
    (Gate::ProcMountType, "ProcMountType", true),
    (
        Gate::RecursiveReadOnlyMounts,
        "RecursiveReadOnlyMounts",
        true,
    ),
    (Gate::ImageVolume, "ImageVolume", true),
    (Gate::ContainerStopSignals, "ContainerStopSignals", false),
    (
        Gate::RuntimeClassInImageCriAPI,
        "RuntimeClassInImageCriAPI",
        false,
    ),
    (Gate::EnvFiles, "EnvFiles", true),
    (Gate::HostnameOverride, "HostnameOverride", true),
    (Gate::WindowsHostNetwork, "WindowsHostNetwork", true),
    (
        Gate::KubeletEnsureSecretPulledImages,
        "KubeletEnsureSecretPulledImages",
        true,
    ),
    (
        Gate::PodReadyToStartContainersCondition,
        "PodReadyToStartContainersCondition",
        true,
    ),
    (
        Gate::PodObservedGenerationTracking,
        "PodObservedGenerationTracking",
        true,
    ),
    (
        Gate::ChangeContainerStatusOnKubeletRestart,
        "ChangeContainerStatusOnKubeletRestart",
        false,
    ),
];

/// How many gates the engine knows (the length of [`GATES`]).
const GATE_COUNT: usize = GATES.len();

/// Resolved gate values for one request: the 1.37 defaults with the request's overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureGates {
    /// Indexed by `Gate as usize`.
    values: [bool; GATE_COUNT],
    unknown: Vec<String>,
}

impl Default for FeatureGates {
    fn default() -> Self {
        Self::resolve(&BTreeMap::new())
    }
}

impl FeatureGates {
    /// Defaults overridden by `overrides`. Unknown names are kept for warnings.
    #[must_use]
    pub fn resolve(overrides: &BTreeMap<String, bool>) -> Self {
        let mut gates = Self {
            values: [false; GATE_COUNT],
            unknown: Vec::new(),
        };
        for (gate, _, default) in GATES {
            gates.set(*gate, *default);
        }
        for (name, value) in overrides {
            match GATES.iter().find(|(_, n, _)| n == name) {
                Some((gate, _, _)) => gates.set(*gate, *value),
                None => gates.unknown.push(name.clone()),
            }
        }
        gates
    }

    fn set(&mut self, gate: Gate, value: bool) {
        if let Some(slot) = self.values.get_mut(gate as usize) {
            *slot = value;
        }
    }

    /// Whether the engine knows a gate of this name.
    #[must_use]
    pub(crate) fn knows(name: &str) -> bool {
        GATES.iter().any(|(_, n, _)| *n == name)
    }

    /// Whether `gate` is on.
    #[must_use]
    pub(crate) fn enabled(&self, gate: Gate) -> bool {
        self.values.get(gate as usize).copied().unwrap_or(false)
    }

    /// Gate names in the request that the engine does not know (they change nothing).
    #[cfg(test)]
    #[must_use]
    pub(crate) fn unknown(&self) -> &[String] {
        &self.unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gate_has_its_own_slot_in_declaration_order() {
        for (i, (gate, name, default)) in GATES.iter().enumerate() {
            assert_eq!(*gate as usize, i, "{name}");
            assert_eq!(FeatureGates::default().enabled(*gate), *default, "{name}");
            let flipped = FeatureGates::resolve(&BTreeMap::from([(name.to_string(), !default)]));
            assert_eq!(flipped.enabled(*gate), !default, "{name}");
            assert!(FeatureGates::knows(name));
        }
        assert!(!FeatureGates::knows("NoSuchGate"));
    }

    #[test]
    fn overrides_win_and_unknown_names_are_kept() {
        let mut o = BTreeMap::new();
        o.insert("ContainerRestartRules".to_string(), false);
        o.insert("NoSuchGate".to_string(), true);
        let g = FeatureGates::resolve(&o);
        assert!(!g.enabled(Gate::ContainerRestartRules));
        assert!(g.enabled(Gate::SidecarContainers));
        assert!(!g.enabled(Gate::CustomCPUCFSQuotaPeriod));
        assert_eq!(g.unknown(), ["NoSuchGate".to_string()]);
    }
}
