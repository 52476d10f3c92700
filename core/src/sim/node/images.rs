//! Images: the node's image store (`ListImages`, `ImageStatus`) and `PullImage`, with
//! references normalised as containerd does and the registry's scripted answers.

use std::collections::BTreeMap;

use super::error::{CriCode, CriError};
use super::records::{image_record, normalize_image, ImageRecord};
use super::store::Node;
use crate::plan::{PullFault, RegistryFault};

impl Node {
    pub(super) fn find_image(&self, reference: &str) -> Option<&ImageRecord> {
        if reference.is_empty() {
            return None;
        }
        if let Some(image) = self.images.get(reference) {
            return Some(image);
        }
        let normalized = normalize_image(reference);
        self.images
            .values()
            .find(|i| i.repo_tags.contains(&normalized) || i.repo_digests.contains(&normalized))
    }

    /// `ImageStatus`: the image, if the node has it (by reference, digest or id).
    #[must_use]
    pub fn image_status(&self, reference: &str) -> Option<&ImageRecord> {
        self.find_image(reference)
    }

    /// `ListImages`.
    pub fn images(&self) -> impl Iterator<Item = &ImageRecord> {
        self.images.values()
    }

    /// `PullImage`: the image's id; `NOT_FOUND` for an image the scenario makes
    /// unpullable, the scripted registry fault for an image that has one (counting it
    /// down).
    pub fn pull_image(
        &mut self,
        reference: &str,
        now: jiff::Timestamp,
    ) -> Result<String, CriError> {
        self.advance(now);
        let normalized = normalize_image(reference);
        if reference.is_empty()
            || self
                .scenario
                .images
                .unpullable
                .iter()
                .any(|u| normalize_image(u) == normalized)
        {
            return Err(registry_error(PullFault::NotFound, reference));
        }
        let registry = &mut self.scenario.images.registry;
        let scripted = registry
            .iter()
            .find(|(image, f)| f.times != Some(0) && normalize_image(image) == normalized)
            .map(|(image, f)| (image.clone(), *f));
        if let Some((image, RegistryFault { fault, times })) = scripted {
            match times {
                Some(1) => {
                    registry.remove(&image);
                }
                Some(n) => {
                    registry.insert(
                        image,
                        RegistryFault {
                            fault,
                            times: Some(n - 1),
                        },
                    );
                }
                None => {}
            }
            return Err(registry_error(fault, reference));
        }
        if let Some(image) = self.find_image(reference) {
            return Ok(image.id.clone());
        }
        let record = image_record(&normalized);
        let id = record.id.clone();
        self.images.insert(id.clone(), record);
        Ok(id)
    }

    /// The registry faults still scripted (`ImagesScript::registry`), as counted down.
    #[must_use]
    pub fn registry_faults(&self) -> &BTreeMap<String, RegistryFault> {
        &self.scenario.images.registry
    }
}

/// containerd's error for a pull of `reference` that the registry refuses with `fault`:
/// a name that does not resolve (`NOT_FOUND`), a registry that cannot be reached
/// (`UNKNOWN`, the resolver's dial error).
pub(crate) fn registry_error(fault: PullFault, reference: &str) -> CriError {
    let (repo, tag, _) = crate::images::reference::parse_image_name(reference)
        .unwrap_or_else(|_| (reference.to_string(), "latest".to_string(), String::new()));
    let full = format!("{repo}:{tag}");
    match fault {
        PullFault::NotFound => CriError::new(
            CriCode::NotFound,
            format!("failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"),
        ),
        PullFault::RegistryDown => {
            let (host, path) = repo.split_once('/').unwrap_or(("docker.io", repo.as_str()));
            let host = if host == "docker.io" { "registry-1.docker.io" } else { host };
            CriError::new(
                CriCode::Unknown,
                format!("failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": failed to do request: Head \"https://{host}/v2/{path}/manifests/{tag}\": dial tcp: lookup {host}: no such host"),
            )
        }
    }
}
