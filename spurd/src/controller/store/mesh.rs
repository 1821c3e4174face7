//! The mesh's members in the `mesh_members` table: each node's public key
//! and the host part of its mesh address, so that a restarted controller
//! knows every member and a node keeps its address.

use super::{Store, StoreError, Turn};

/// One member as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMember {
    /// Its NodeName.
    pub node: String,
    /// Its WireGuard public key.
    pub public_key: [u8; 32],
    /// Its address's offset into MeshNetwork.
    pub host: u32,
}

impl Store {
    /// Every member, by node name.
    pub fn mesh_members(&self) -> Result<Vec<StoredMember>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT node, public_key, host FROM mesh_members ORDER BY node")?;
        let rows = stmt.query_map([], |r| {
            let key: Vec<u8> = r.get(1)?;
            Ok((r.get::<_, String>(0)?, key, r.get::<_, i64>(2)?))
        })?;
        let mut members = vec![];
        for row in rows {
            let (node, key, host) = row?;
            let len = key.len();
            let public_key = key.try_into().map_err(|_| StoreError::MeshKey {
                node: node.clone(),
                len,
            })?;
            members.push(StoredMember {
                node,
                public_key,
                host: host as u32,
            });
        }
        Ok(members)
    }
}

impl Turn<'_> {
    /// Records `member` (a new one, or a node's new key).
    pub fn set_mesh_member(&self, member: &StoredMember) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO mesh_members (node, public_key, host) VALUES (?1, ?2, ?3)",
            )?
            .execute(rusqlite::params![
                member.node,
                member.public_key.as_slice(),
                i64::from(member.host)
            ])?;
        Ok(())
    }

    /// Forgets node `node`'s membership.
    pub fn remove_mesh_member(&self, node: &str) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM mesh_members WHERE node = ?1")?
            .execute([node])?;
        Ok(())
    }
}
