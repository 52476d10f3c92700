//! Images: the node's image store (`ListImages`, `ImageStatus`) and `PullImage`, with
//! references normalised as containerd does.

use super::error::{CriCode, CriError};
use super::records::{image_record, normalize_image, ImageRecord};
use super::store::Node;

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
    /// unpullable.
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
            return Err(CriError::new(
                CriCode::NotFound,
                format!("failed to pull and unpack image {normalized:?}: failed to resolve reference {normalized:?}: {normalized}: not found"),
            ));
        }
        if let Some(image) = self.find_image(reference) {
            return Ok(image.id.clone());
        }
        let record = image_record(&normalized);
        let id = record.id.clone();
        self.images.insert(id.clone(), record);
        Ok(id)
    }
}
