//! How a candidate module is judged before it goes live: its answers are compared
//! with the native core's (self-test) and with the live module's (shadow run).
//!
//! Two answers agree when both are plans whose `actions` are equal under the
//! contract's comparison rules (`podplan_core::conformance::actions::normalize`), or
//! both are errors of the same kind at the same path.

use serde_json::Value;

use super::embedded::SampleRequest;
use super::{HostError, PlanModule};

/// Why two answers disagree, readable; `None` when they agree.
#[must_use]
pub fn disagreement(expected: &[u8], actual: &[u8]) -> Option<String> {
    let parse = |bytes: &[u8]| serde_json::from_slice::<Value>(bytes).ok();
    let (Some(expected), Some(actual)) = (parse(expected), parse(actual)) else {
        return Some("an answer is not JSON".into());
    };
    match (expected.get("error"), actual.get("error")) {
        (Some(e), Some(a)) => {
            let key = |v: &Value| (v.get("kind").cloned(), v.get("path").cloned());
            (key(e) != key(a)).then(|| format!("error {e} became error {a}"))
        }
        (Some(e), None) => Some(format!("error {e} became a plan")),
        (None, Some(a)) => Some(format!("a plan became error {a}")),
        (None, None) => {
            let actions = |v: &Value| {
                podplan_core::conformance::actions::normalize(
                    v.get("actions").unwrap_or(&Value::Null),
                )
            };
            let (e, a) = (actions(&expected), actions(&actual));
            (e != a).then(|| podplan_core::conformance::json_diff(&e, &a))
        }
    }
}

/// Result of a self-test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfTestReport {
    /// Requests run.
    pub total: usize,
    /// Requests whose answers disagreed with the native core: (vector, why).
    pub failures: Vec<(String, String)>,
}

/// Runs `sample` through `module` and the native core.
#[must_use]
pub fn self_test(module: &PlanModule, sample: &[SampleRequest]) -> SelfTestReport {
    let failures = sample
        .iter()
        .filter_map(|s| {
            let native = podplan_core::plan_json(&s.request);
            let why = match module.plan_json(&s.request) {
                Ok(answer) => disagreement(&native, &answer)?,
                Err(e) => e.to_string(),
            };
            Some((s.name.to_string(), why))
        })
        .collect();
    SelfTestReport {
        total: sample.len(),
        failures,
    }
}

impl SelfTestReport {
    /// `Ok` when every request agreed, else [`HostError::SelfTest`].
    ///
    /// # Errors
    ///
    /// [`HostError::SelfTest`] naming the first disagreement.
    pub fn into_result(self) -> Result<Self, HostError> {
        match self.failures.first() {
            None => Ok(self),
            Some((name, why)) => Err(HostError::SelfTest {
                failed: self.failures.len(),
                total: self.total,
                first: format!("{name}: {why}"),
            }),
        }
    }
}

/// Result of shadow-running a candidate beside the live module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShadowReport {
    /// Recent requests replayed.
    pub total: usize,
    /// Requests decided differently: (index among the replayed requests, why).
    pub differing: Vec<(usize, String)>,
}

/// Replays `requests` on `live` and `candidate` and reports differing decisions. A
/// request the live module cannot answer is skipped; a candidate failure is a difference.
#[must_use]
pub fn shadow_run(
    live: &PlanModule,
    candidate: &PlanModule,
    requests: &[std::sync::Arc<[u8]>],
) -> ShadowReport {
    let mut report = ShadowReport::default();
    for (index, request) in requests.iter().enumerate() {
        let Ok(expected) = live.plan_json(request) else {
            continue;
        };
        report.total += 1;
        let why = match candidate.plan_json(request) {
            Ok(actual) => disagreement(&expected, &actual),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = why {
            report.differing.push((index, why));
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_agree_on_actions_and_error_class_only() {
        let plan = |kill: bool, msg: &str| {
            serde_json::json!({"actions": {"killPod": kill, "containersToKill": {"://a": {"name": "a", "message": msg}}}, "steps": [{"op": msg}]})
                .to_string()
        };
        assert_eq!(
            disagreement(plan(true, "x").as_bytes(), plan(true, "y").as_bytes()),
            None
        );
        assert!(disagreement(plan(true, "x").as_bytes(), plan(false, "x").as_bytes()).is_some());
        let err = |kind: &str, path: &str| {
            serde_json::json!({"error": {"kind": kind, "path": path, "message": "m"}}).to_string()
        };
        assert_eq!(
            disagreement(
                err("InvalidInput", "a").as_bytes(),
                err("InvalidInput", "a").as_bytes()
            ),
            None
        );
        assert!(disagreement(
            err("InvalidInput", "a").as_bytes(),
            err("InvalidInput", "b").as_bytes()
        )
        .is_some());
        assert!(disagreement(
            err("InvalidInput", "a").as_bytes(),
            plan(true, "x").as_bytes()
        )
        .is_some());
        assert!(disagreement(b"{", plan(true, "x").as_bytes()).is_some());
    }
}
