//! Framing: every message is a 4-byte big-endian length followed by its
//! bincode encoding. Owns the limits on frame size; knows nothing of what the
//! messages mean.

use serde::de::DeserializeOwned;
use serde::Serialize;
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest frame accepted (scripts are limited well below this).
pub const MAX_FRAME: u32 = 256 << 20;

/// A frame that could not be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The socket failed or closed.
    #[error("connection failed")]
    Io(#[from] std::io::Error),
    /// The peer announced a frame above [`MAX_FRAME`].
    #[error("frame of {0} bytes exceeds the limit")]
    TooLarge(u32),
    /// The bytes are not a message of the expected type.
    #[error("malformed message")]
    Decode(#[source] bincode::Error),
    /// A message could not be encoded.
    #[error("message cannot be encoded")]
    Encode(#[source] bincode::Error),
}

impl FrameError {
    /// Whether the peer simply closed the connection.
    pub fn is_eof(&self) -> bool {
        matches!(self, FrameError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof)
    }
}

/// Encodes one message as a frame (length prefix included).
pub fn encode<T: Serialize>(msg: &T) -> Result<Vec<u8>, FrameError> {
    let len = bincode::serialized_size(msg).map_err(FrameError::Encode)?;
    let len = u32::try_from(len)
        .ok()
        .filter(|&l| l <= MAX_FRAME)
        .ok_or(FrameError::TooLarge(u32::MAX))?;
    let mut buf = Vec::with_capacity(4 + len as usize);
    buf.extend_from_slice(&len.to_be_bytes());
    bincode::serialize_into(&mut buf, msg).map_err(FrameError::Encode)?;
    Ok(buf)
}

/// Decodes a frame's payload (without the length prefix).
pub fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, FrameError> {
    bincode::deserialize(payload).map_err(FrameError::Decode)
}

/// Writes one message.
pub async fn write<T: Serialize, W: AsyncWrite + Unpin>(
    w: &mut W,
    msg: &T,
) -> Result<(), FrameError> {
    let buf = encode(msg)?;
    w.write_all(&buf).await?;
    w.flush().await?;
    Ok(())
}

/// Reads one message.
pub async fn read<T: DeserializeOwned, R: AsyncRead + Unpin>(r: &mut R) -> Result<T, FrameError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).await?;
    let len = u32::from_be_bytes(len);
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    let mut payload = vec![0u8; len as usize];
    r.read_exact(&mut payload).await?;
    decode(&payload)
}

/// Writes one message on a blocking stream (the supervisor's and the
/// commands' synchronous paths).
pub fn write_sync<T: Serialize, W: std::io::Write>(w: &mut W, msg: &T) -> Result<(), FrameError> {
    let buf = encode(msg)?;
    w.write_all(&buf)?;
    w.flush()?;
    Ok(())
}

/// Reads one message from a blocking stream.
pub fn read_sync<T: DeserializeOwned, R: std::io::Read>(r: &mut R) -> Result<T, FrameError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len);
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    let mut payload = vec![0u8; len as usize];
    r.read_exact(&mut payload)?;
    decode(&payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ClientRequest, ClientResponse};

    #[tokio::test]
    async fn a_message_survives_the_round_trip() {
        let (mut a, mut b) = tokio::io::duplex(1 << 16);
        write(&mut a, &ClientRequest::Ping).await.expect("writes");
        let got: ClientRequest = read(&mut b).await.expect("reads");
        assert!(matches!(got, ClientRequest::Ping));
    }

    #[tokio::test]
    async fn an_oversize_length_is_refused_before_allocating() {
        let (mut a, mut b) = tokio::io::duplex(64);
        tokio::io::AsyncWriteExt::write_all(&mut a, &u32::MAX.to_be_bytes())
            .await
            .expect("writes");
        let got = read::<ClientResponse, _>(&mut b).await;
        assert!(matches!(got, Err(FrameError::TooLarge(u32::MAX))));
    }

    #[test]
    fn garbage_is_a_decode_error() {
        let got = decode::<ClientRequest>(&[0xff, 0xff, 0xff, 0xff, 9]);
        assert!(matches!(got, Err(FrameError::Decode(_))));
    }
}
