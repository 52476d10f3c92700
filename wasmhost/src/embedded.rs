//! Material built into the binary (see `build.rs`): the plain-ABI module and the
//! conformance action vectors used to self-test candidate modules.

use super::HostError;

include!(concat!(env!("OUT_DIR"), "/action_vectors.rs"));

/// The plain-ABI module built from this repository (`wasm/pkg/abi/podplan_abi.wasm`
/// at build time).
///
/// # Errors
///
/// [`HostError::NoEmbeddedModule`] when the binary was built without it.
pub fn module_bytes() -> Result<&'static [u8], HostError> {
    #[cfg(podplan_embedded_module)]
    {
        Ok(include_bytes!(env!("PODPLAN_EMBEDDED_MODULE")))
    }
    #[cfg(not(podplan_embedded_module))]
    {
        Err(HostError::NoEmbeddedModule)
    }
}

/// One sample request: where it comes from, and its JSON bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRequest {
    /// The vector's path under the repository.
    pub name: &'static str,
    /// The vector's `request`, as JSON bytes.
    pub request: Vec<u8>,
}

/// Up to `n` requests from the built-in vectors, evenly spread over the whole set (so
/// every kind of vector is represented), in a fixed order. Only the vectors picked are
/// parsed: a module is self-tested on every start of the CLI.
#[must_use]
pub fn sample_requests(n: usize) -> Vec<SampleRequest> {
    let total = ACTION_VECTORS.len();
    ACTION_VECTORS
        .iter()
        .enumerate()
        .filter(|(i, _)| n >= total || (i * n) % total < n)
        .filter_map(|(_, (name, text))| {
            let vector: serde_json::Value = serde_json::from_str(text).ok()?;
            let request = serde_json::to_vec(vector.get("request")?).ok()?;
            Some(SampleRequest { name, request })
        })
        .take(n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vector_is_embedded_and_samples_spread() {
        assert!(
            ACTION_VECTORS.len() >= 50,
            "{} vectors",
            ACTION_VECTORS.len()
        );
        let all = sample_requests(usize::MAX);
        assert_eq!(all.len(), ACTION_VECTORS.len());
        let some = sample_requests(12);
        assert_eq!(some.len(), 12);
        let dirs: std::collections::BTreeSet<&str> = some
            .iter()
            .filter_map(|s| s.name.split('/').nth(2))
            .collect();
        assert!(dirs.len() >= 5, "sample covers only {dirs:?}");
    }
}
