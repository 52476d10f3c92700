//! Property tests for the image manager and hooks: arbitrary (bad) input never panics and
//! gives structured answers.

use std::collections::BTreeMap;

use podplan_core::features::FeatureGates;
use podplan_core::hooks::{kill_grace, pre_stop_step};
use podplan_core::images::reference::apply_default_image_tag;
use podplan_core::images::{PullResult, PullResultRecord};
use podplan_core::plan::ImageBackoffRecord;
use podplan_core::unstable::images::{
    complete_pull, ensure_image_exists, usable_pull_results, EnsureInput, ImageBackoff,
    ImageBackoffPolicy, NodeImages, Outcome, PullRecordCheck,
};
use proptest::prelude::*;

fn ts(s: i64) -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_700_000_000 + s).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

fn pod(image: &str, policy: &str) -> k8s_openapi::api::core::v1::Pod {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": "p", "namespace": "n", "uid": "u", "annotations": {"a": "b"}},
        "spec": {"containers": [{"name": "c", "image": image, "imagePullPolicy": policy}]}
    }))
    .unwrap_or_default()
}

proptest! {
    #[test]
    fn references_never_panic(s in "\\PC{0,80}", t in "[a-zA-Z0-9._:/@-]{0,80}") {
        let _ = apply_default_image_tag(&s);
        if let Ok(tagged) = apply_default_image_tag(&t) {
            // Tag defaulting is idempotent.
            prop_assert_eq!(apply_default_image_tag(&tagged).ok(), Some(tagged.clone()));
        }
    }

    #[test]
    fn ensure_never_panics_and_backoff_is_monotone(
        image in "[a-zA-Z0-9._:/@-]{0,40}",
        policy in prop::sample::select(vec!["Always", "IfNotPresent", "Never", "", "bogus"]),
        present in any::<bool>(),
        gate in any::<bool>(),
        fails in prop::collection::vec(any::<bool>(), 1..8),
        records in prop::collection::vec((0u64..1000, -1000i64..1000, any::<bool>()), 0..4),
    ) {
        let pod = pod(&image, policy);
        let mut node = NodeImages::default();
        if present {
            if let Ok(t) = apply_default_image_tag(&image) {
                node.images.insert(t.clone(), t);
            }
        }
        let recs: Vec<ImageBackoffRecord> = records
            .iter()
            .map(|(d, at, same)| ImageBackoffRecord {
                key: if *same { format!("u_{image}") } else { "x".into() },
                delay_seconds: *d,
                last_update: ts(*at),
                previous_error: None,
            })
            .collect();
        let (mut backoff, _warnings) = ImageBackoff::new(ImageBackoffPolicy::default(), &recs);
        let _ = backoff.check_clock(ts(0));
        let gates = FeatureGates::resolve(&BTreeMap::from([(
            "KubeletEnsureSecretPulledImages".to_string(),
            gate,
        )]));
        let creds = BTreeMap::new();
        let check = PullRecordCheck::default();
        for (i, fail) in fails.iter().enumerate() {
            let now = ts(i64::try_from(i).unwrap_or(0) * 7);
            let input = EnsureInput {
                pod: &pod, container: "c", image: &image, pull_policy: Some(policy),
                pull_secrets: &[], node_credentials: &creds, runtime_handler: "",
                gates: &gates, node_images: &node, pull_records: &check, now,
            };
            let d = ensure_image_exists(&input, &mut backoff);
            if let Outcome::Pull(order) = &d.outcome {
                prop_assert!(policy != "Never");
                let before = backoff.delay_seconds(&order.backoff_key);
                let result = PullResult {
                    image_ref: (!fail).then(|| order.spec.image.clone()),
                    error: fail.then(|| "boom".to_string()),
                    pull_millis: 1, total_millis: 1, image_size: 1,
                };
                let (res, events) = complete_pull(order, "c", &result, &mut backoff, now);
                prop_assert_eq!(res.is_err(), *fail);
                prop_assert_eq!(events.len(), 1);
                if *fail {
                    let after = backoff.delay_seconds(&order.backoff_key).unwrap_or(0);
                    prop_assert!(after >= 1);
                    if let Some(b) = before { prop_assert!(after >= b.min(300) || after == 10); }
                }
            }
        }
    }

    #[test]
    fn pull_results_for_other_images_warn(img in "[a-z]{1,8}", other in "[a-z]{1,8}", at in 0i64..100) {
        let pod = pod(&img, "Always");
        let r = |image: &str| PullResultRecord {
            image: image.into(), backoff_key: None, at: ts(at),
            result: PullResult { image_ref: Some("x".into()), error: None, pull_millis: 0, total_millis: 0, image_size: 0 },
        };
        let list = [r(&img), r(&other)];
        let (ok, warnings) = usable_pull_results(&pod, &list);
        prop_assert!(ok.contains_key(&img));
        // Another image: ignored with a warning; the same image twice: the later wins, with a warning.
        prop_assert_eq!(warnings.len(), 1);
        prop_assert_eq!(ok.len(), 1);
        let bad = [PullResultRecord { result: PullResult { error: Some("e".into()), ..list[0].result.clone() }, ..list[0].clone() }];
        prop_assert_eq!(usable_pull_results(&pod, &bad).1.len(), 1);
    }

    #[test]
    fn hooks_never_panic(grace in -100i64..100, millis in any::<u64>(), port in any::<i32>(), name in "[a-z]{0,5}") {
        let g = kill_grace(grace, true, millis);
        prop_assert!(g.stop_grace_period_seconds >= 2);
        prop_assert_eq!(g.pre_stop_runs, grace > 0);
        let c: k8s_openapi::api::core::v1::Container = serde_json::from_value(serde_json::json!({
            "name": "c", "lifecycle": {
                "postStart": {"httpGet": {"port": port}},
                "preStop": {"httpGet": {"port": name}}}})).unwrap_or_default();
        let _ = pre_stop_step(&c, Some("10.0.0.1"), grace);
    }
}
