//! Human-readable text rendering of a plan. STUB: owned by the decision work.

use crate::plan::Plan;

/// Renders a plan as readable text.
#[must_use]
pub fn to_text(plan: &Plan) -> String {
    format!("{plan:?}")
}
