//! The kubelet's shared container helpers (`pkg/kubelet/container`, imported there as
//! `kubecontainer`): what both `computePodActions` ([`crate::decision`]) and the pod's API
//! status ([`crate::status`]) read, so that neither reaches into the other.
//!
//! * [`pod_status`]: lookups over the runtime's `kubecontainer.PodStatus` and the prober
//!   results (`FindContainerStatusByName`, `ActiveContainerStatuses`; `runtime.go`).
//! * [`restart`]: the restart predicates (`ShouldContainerBeRestarted`, `helpers.go`;
//!   `ContainerShouldRestart` and the container restart rules, `pkg/api/v1/pod/util.go`).

pub(crate) mod pod_status;
pub(crate) mod restart;
