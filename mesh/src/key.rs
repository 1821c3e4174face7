//! This host's mesh key pair: the private key is made here, kept in a file
//! of mode 0600 and never leaves the host; peers know only the public key.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use wireguard_control::Key;

use crate::MeshError;

/// A host's WireGuard key pair.
#[derive(Clone)]
pub struct MeshKey {
    private: Key,
    public: Key,
}

impl std::fmt::Debug for MeshKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeshKey")
            .field("public", &self.public.to_base64())
            .finish_non_exhaustive()
    }
}

impl MeshKey {
    /// The key pair in `path`, made (and written there, mode 0600) where
    /// the file does not exist. A file others can read is refused: the key
    /// may have been seen.
    pub fn load_or_make(path: &Path) -> Result<MeshKey, MeshError> {
        let io = |source| MeshError::Key {
            path: path.to_path_buf(),
            source,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let mode = std::fs::metadata(path).map_err(io)?.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    return Err(MeshError::OpenKey {
                        path: path.to_path_buf(),
                        mode,
                    });
                }
                let private = Key::from_base64(text.trim()).map_err(|_| MeshError::BadKey {
                    path: path.to_path_buf(),
                })?;
                Ok(MeshKey::from_private(private))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = MeshKey::from_private(Key::generate_private());
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(path)
                    .map_err(io)?;
                writeln!(file, "{}", key.private.to_base64()).map_err(io)?;
                file.sync_all().map_err(io)?;
                Ok(key)
            }
            Err(e) => Err(io(e)),
        }
    }

    /// A new key pair in place of the one in `path` (written beside it
    /// and renamed over it, mode 0600, so that a crash leaves one key or
    /// the other whole).
    pub fn rotate(path: &Path) -> Result<MeshKey, MeshError> {
        let io = |source| MeshError::Key {
            path: path.to_path_buf(),
            source,
        };
        let key = MeshKey::from_private(Key::generate_private());
        let mut fresh = path.as_os_str().to_owned();
        fresh.push(".new");
        let fresh = std::path::PathBuf::from(fresh);
        let _ = std::fs::remove_file(&fresh);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&fresh)
            .map_err(io)?;
        writeln!(file, "{}", key.private.to_base64()).map_err(io)?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&fresh, path).map_err(io)?;
        if let Some(dir) = path.parent() {
            std::fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(io)?;
        }
        Ok(key)
    }

    fn from_private(private: Key) -> MeshKey {
        let public = private.get_public();
        MeshKey { private, public }
    }

    /// The public key, which peers are told.
    pub fn public(&self) -> &Key {
        &self.public
    }

    pub(crate) fn private(&self) -> &Key {
        &self.private
    }
}

/// A public key as WireGuard's tools print it (base64, 44 characters).
pub fn fingerprint(key: &Key) -> String {
    key.to_base64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_with_mode_0600_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mesh.key");
        let made = MeshKey::load_or_make(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let again = MeshKey::load_or_make(&path).unwrap();
        assert_eq!(again.public(), made.public());
        assert_eq!(again.private(), made.private());
        assert_eq!(made.private().get_public(), *made.public());
        assert_eq!(fingerprint(made.public()).len(), 44);
        assert!(!format!("{made:?}").contains(&made.private().to_base64()));
    }

    #[test]
    fn a_rotated_key_replaces_the_old_one_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mesh.key");
        let old = MeshKey::load_or_make(&path).unwrap();
        let new = MeshKey::rotate(&path).unwrap();
        assert_ne!(new.public(), old.public());
        assert_eq!(MeshKey::load_or_make(&path).unwrap().public(), new.public());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no file left beside it"
        );
    }

    #[test]
    fn a_key_others_can_read_or_that_is_no_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mesh.key");
        MeshKey::load_or_make(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = MeshKey::load_or_make(&path).unwrap_err().to_string();
        assert!(err.contains("mode 644"), "{err}");
        std::fs::write(&path, "not a key\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let err = MeshKey::load_or_make(&path).unwrap_err().to_string();
        assert!(err.contains("is not a WireGuard private key"), "{err}");
    }
}
