//! Tokens made by spur, by a site's own tooling (HMAC-SHA256 computed
//! here without jsonwebtoken) and by an outside RS256 issuer (openssl),
//! and the ones that must be refused.

use std::os::unix::fs::PermissionsExt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::*;
use spur_conf::ConfFile;

const NOW: u64 = 1_800_000_000;

fn conf(dir: &Path, params: &str) -> SlurmConf {
    let text = format!(
        "ClusterName=t\nSlurmctldHost=c\nStateSaveLocation={}\nAuthAltTypes=auth/jwt\n{params}",
        dir.display()
    );
    SlurmConf::parse_with(&text, Path::new("slurm.conf"), &mut |p: &Path| {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            p.display().to_string(),
        ))
    })
    .expect("parses")
    .value
}

fn write_key(path: &Path, key: &[u8], mode: u32) {
    std::fs::write(path, key).expect("writes");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// An HS256 token made the way a site's script makes one.
fn hand_made(key: &[u8], header: &str, claims: &str) -> String {
    let signing = format!(
        "{}.{}",
        B64.encode(header.as_bytes()),
        B64.encode(claims.as_bytes())
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    mac.update(signing.as_bytes());
    format!("{signing}.{}", B64.encode(mac.finalize().into_bytes()))
}

fn keys_with_default_file(key: &[u8]) -> (tempfile::TempDir, JwtKeys) {
    let dir = tempfile::tempdir().expect("tempdir");
    write_key(&dir.path().join("jwt_hs256.key"), key, 0o600);
    let keys = JwtKeys::load(&conf(dir.path(), ""))
        .expect("loads")
        .expect("auth/jwt is on");
    (dir, keys)
}

#[test]
fn without_auth_jwt_there_are_no_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "ClusterName=t\nSlurmctldHost=c\nStateSaveLocation={}\n",
        dir.path().display()
    );
    let conf = SlurmConf::parse_with(&text, Path::new("slurm.conf"), &mut |_: &Path| {
        Err(std::io::Error::other("no includes"))
    })
    .expect("parses")
    .value;
    assert!(JwtKeys::load(&conf).expect("loads").is_none());
}

#[test]
fn spur_tokens_and_hand_made_tokens_name_their_user() {
    let (_dir, keys) = keys_with_default_file(b"a site secret of some length");
    let token = keys.issue("alice", 60, NOW).expect("issues");
    assert_eq!(keys.verify(&token, NOW + 59), Ok("alice".to_string()));
    let claims = format!(r#"{{"exp":{},"iat":{NOW},"sun":"bob"}}"#, NOW + 100);
    let site = hand_made(
        b"a site secret of some length",
        r#"{"alg":"HS256","typ":"JWT"}"#,
        &claims,
    );
    assert_eq!(keys.verify(&site, NOW), Ok("bob".to_string()));
    // `username` is read when `sun` is absent.
    let claims = format!(r#"{{"exp":{},"username":"carol"}}"#, NOW + 100);
    let other = hand_made(
        b"a site secret of some length",
        r#"{"alg":"HS256"}"#,
        &claims,
    );
    assert_eq!(keys.verify(&other, NOW), Ok("carol".to_string()));
}

#[test]
fn expired_badly_signed_other_key_and_alg_none_tokens_are_refused() {
    let (_dir, keys) = keys_with_default_file(b"the right key");
    let token = keys.issue("alice", 60, NOW).expect("issues");
    assert_eq!(keys.verify(&token, NOW + 61), Err(TokenError::Expired));
    let claims = format!(r#"{{"exp":{},"sun":"root"}}"#, NOW + 100);
    let other = hand_made(b"another key", r#"{"alg":"HS256","typ":"JWT"}"#, &claims);
    assert!(matches!(
        keys.verify(&other, NOW),
        Err(TokenError::Invalid(_))
    ));
    let mut tampered = token.clone();
    tampered.pop();
    tampered.push(if token.ends_with('A') { 'B' } else { 'A' });
    assert!(matches!(
        keys.verify(&tampered, NOW),
        Err(TokenError::Invalid(_))
    ));
    let none = format!(
        "{}.{}.",
        B64.encode(br#"{"alg":"none","typ":"JWT"}"#),
        B64.encode(claims.as_bytes())
    );
    assert!(keys.verify(&none, NOW).is_err());
    let nameless = hand_made(
        b"the right key",
        r#"{"alg":"HS256"}"#,
        &format!(r#"{{"exp":{}}}"#, NOW + 100),
    );
    assert_eq!(keys.verify(&nameless, NOW), Err(TokenError::NoUser));
    assert!(keys.verify("garbage", NOW).is_err());
    assert!(keys.verify("", NOW).is_err());
}

#[test]
fn a_key_file_others_can_read_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("k");
    write_key(&path, b"secret", 0o644);
    let err = JwtKeys::load(&conf(
        dir.path(),
        &format!("AuthAltParameters=jwt_key={}\n", path.display()),
    ))
    .expect_err("refused");
    assert!(err.to_string().contains("mode 0644"), "{err}");
    write_key(&path, b"secret", 0o640);
    assert!(JwtKeys::load(&conf(
        dir.path(),
        &format!("AuthAltParameters=jwt_key={}\n", path.display()),
    ))
    .is_ok());
    // A missing default key is an error too: auth/jwt without a key
    // could verify nothing.
    let empty = tempfile::tempdir().expect("tempdir");
    assert!(JwtKeys::load(&conf(empty.path(), "")).is_err());
}

#[test]
fn lifespans_follow_max_token_lifespan() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_key(&dir.path().join("jwt_hs256.key"), b"k", 0o600);
    let keys = JwtKeys::load(&conf(
        dir.path(),
        "AuthAltParameters=max_token_lifespan=600,disable_token_creation\n",
    ))
    .expect("loads")
    .expect("on");
    assert_eq!(keys.lifespan(None, false), Ok(600));
    assert_eq!(keys.lifespan(Some(100), false), Ok(100));
    assert_eq!(keys.lifespan(Some(900), false), Err(600));
    assert_eq!(keys.lifespan(Some(900), true), Ok(900));
    assert!(!keys.may_create(false));
    assert!(keys.may_create(true));
    let (_d, plain) = keys_with_default_file(b"k");
    assert_eq!(plain.lifespan(None, false), Ok(DEFAULT_LIFESPAN));
    assert!(plain.may_create(false));
}

/// An RS256 issuer outside the cluster (openssl standing in for Keycloak):
/// its public key in a jwks file verifies its tokens; a token under an
/// unknown kid does not.
#[test]
fn rs256_tokens_verify_against_the_jwks_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pem = dir.path().join("issuer.pem");
    let run = |args: &[&str]| {
        std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir.path())
            .output()
    };
    match run(&["genrsa", "-out", "issuer.pem", "2048"]) {
        Ok(out) if out.status.success() => {}
        _ => {
            eprintln!("skipped: openssl is not installed");
            return;
        }
    }
    let modulus = run(&["rsa", "-in", "issuer.pem", "-noout", "-modulus"]).expect("openssl");
    let hex = String::from_utf8(modulus.stdout).expect("text");
    let hex = hex.trim().trim_start_matches("Modulus=");
    let n: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    let jwks = format!(
        r#"{{"keys":[{{"kty":"RSA","alg":"RS256","use":"sig","kid":"k1","n":"{}","e":"AQAB"}},
        {{"kty":"oct","alg":"HS512","kid":"skip","k":"c2VjcmV0"}}]}}"#,
        B64.encode(&n)
    );
    let jwks_path = dir.path().join("jwks.json");
    write_key(&jwks_path, jwks.as_bytes(), 0o644);
    let keys = JwtKeys::load(&conf(
        dir.path(),
        &format!("AuthAltParameters=jwks={}\n", jwks_path.display()),
    ))
    .expect("loads")
    .expect("on");
    let sign = |kid: &str| {
        let signing = format!(
            "{}.{}",
            B64.encode(format!(r#"{{"alg":"RS256","typ":"JWT","kid":"{kid}"}}"#)),
            B64.encode(format!(r#"{{"exp":{},"sun":"dave"}}"#, NOW + 60))
        );
        std::fs::write(dir.path().join("in"), &signing).expect("writes");
        let sig = run(&["dgst", "-sha256", "-sign", "issuer.pem", "in"]).expect("openssl");
        assert!(sig.status.success());
        format!("{signing}.{}", B64.encode(sig.stdout))
    };
    assert_eq!(keys.verify(&sign("k1"), NOW), Ok("dave".to_string()));
    assert_eq!(
        keys.verify(&sign("k9"), NOW),
        Err(TokenError::UnknownKid(Some("k9".into())))
    );
    // jwks alone turns HS256 off: no tokens are made.
    assert_eq!(
        keys.issue("dave", 60, NOW),
        Err(TokenError::CreationDisabled)
    );
    let _ = pem;
}
