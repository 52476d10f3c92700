//! `computePodActions`: what to do with the pod on this sync. STUB: owned by the decision work.

use crate::features::FeatureGates;
use crate::plan::Plan;
use crate::request::PlanRequest;

/// Computes the pod actions (and their reasons) for a validated request.
pub fn decide(_request: &PlanRequest, _gates: &FeatureGates) -> Plan {
    Plan::default()
}
