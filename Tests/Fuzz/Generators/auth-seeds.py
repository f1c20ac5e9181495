#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The vault authors; see LICENSE.
"""Writes the seed corpora of the sign-in fuzz targets (Sources/VaultFuzzing/Targets:
token-response, oauth-error, device-authorization, discovery, id-token, loopback-request)
into Tests/Fuzz/Corpus/<target>/. Run from the repository root: python3 Tests/Fuzz/Generators/auth-seeds.py

The ID tokens are signed with the fixed test keys below, whose public halves the id-token
target holds (IDTokenTargets.jwks); they sign nothing else. Needs python3-cryptography.
"""
import base64, json, os
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

RSA_PEM = b"""
-----BEGIN PRIVATE KEY-----
MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQCngX7T//8gQYDK
VdRLlrBC7AhfcgaZnbcCtVL78MJdpTS+v1nELWTrBtN3mGeWyNsle3/eq7W/Zdbs
opy7zKTLtL3zbS8vFXmHGrhtV4Ab7Atsy2JqjEy8y6FxBnhyrmVxAiu4nOedUWJ7
Q1LHlHrrb5R0m+CmWzIws406u+Szrrdz6DbF9qSlaS2so1FpB+goerH6JaRYGG4n
B71O4cgx+dor2QoWmr9806XxcE4u34yxTKjq4/3502SxYTkvvDH3vI6ofEpsX/Cs
CzqkF15A7A+BL/W9b9h0uo1n/zQVbNNQmNS7kJVqMFjrlYDZrXlIVFYuE+7+w1bM
ihXfkZsXAgMBAAECggEABVCjFRgA4OWjMAhkKZfY9O6nX1vvYK1z8qaNQQhFKpKE
526L6yEjnB+F0zwnQU4TQg+2oXqiVDXniW+peH4IVpxgEJrMzfoo9oP/CR0nJ/un
6yZS852LC8yMTVlOthjZiCnw+DUmVkQQU2fx9vo7oj/SnpaZnL21DH2OBCiVG6xo
0TApjsx0IvsKrggOyufMjpIOW/mPEtbpOmlNc88AQXC0ovnptorcGEqo2QG7bBn8
sPWKg37ay/5YEGs6Yln+Po6aNv5x3KDN6mWioOq1yAYuknTEGXf+hZIKeAF/X9hx
y0XP/xDQGgtLSRDYbM9G12qSdm6bUQEAbapqqkxKpQKBgQDqIDENovVyRvNG70Om
DjzEVt7o1YkcUQg3wHGwq09lYk3xtwkawhe2SxQiZmnA2c+L5vYpLPHptgqLq/Tv
I2HbTeOhCQxWTnpsNzgCSkUMmmwXjTjVt1tgl6DEqR6Von1tdXLpae4Coo7o/hb7
tNKNY51hpzds3Fvcokygzc0QXQKBgQC3J+RfPzHU8HFjYEajirtyzsNfg4lh4Ihq
7XIOt9Qd8Lr6p1dj6uCkOnUULDlH2+/WFDwYkv9mdQKEG1yOTQ96W7GP7UhUvxWG
CC1kemcxHxZU0eJ/dsW+Jkei8jeMAJdrzMsIklnbvO7kZ1qDN3sgQGDLp6kkb8yO
VXgzLlVyAwKBgQCgTw6Hcc9yQhaNuYKujw0YuwrCjoPlea6QzhqKh6JDnz4Theqc
Ac5OqbXNoCZFQF6WQrzGkNnL1zP9Uu7RV37HtNtqBlIGPpIgyuZ02vnQmWPt9Gq4
G2ZcCzavscUZXDtZ2ZOnMzsfXsNP0btW+gc5fL3kgaS3y2Ky/gZODNyemQKBgQCt
KXkfl/a8FQuO4fJHIp3wgI10mz7jG86+EXoZcjGIkRWmb1oPLHxwqJgSl3EcgFLz
erQKo8f2DUBwuBG8tByjGVf59GPDQ9nMm6SW76bqaTLKxJi43Ak+qqBl7U0Y/2Ip
2DhJBV0RhEH0Dcckcerl5hfd08j1mwGxvBrlgLPmEwKBgQCIdHrlFTGWwU3yDwdH
4OeY0tjVTRLA8zBU6kGcszrnlXjCqIx91dbp01dEyWd3Ig3cBJM+5GaWf82WCeEt
Ma6LGimdQgpkiXlx21cGTp7bu7KvBWfVwtRKzTeiMTn8eEdjnMebxfRKFnC10wr1
8YAARTkyOAq90RtmOSMvBEGUUA==
-----END PRIVATE KEY-----

"""
EC_SCALAR = 0x5EED_F0CC_1D70_4E2A_9B3C_6D1E_0F47_8A92_B3C4_D5E6_F708_1929_3A4B_5C6D_7E8F_9011
NOW = 1_767_225_600  # fuzzNow, 2026-01-01T00:00:00Z
ISSUER = "https://accounts.example.com"
CLIENT = "vault-fuzz"
NONCE = "n-0S6_WzA2Mj"
STATE = "fuzz-state-0123456789abcdefghijklmnopqrstuvw"
COOKIE = "fuzz-cookie-0123456789abcdefghijklmnopqrstuv"
START = "fuzz-start-0123456789abcdefghijklmnopqrstuvwx"
PORT = 49152

rsa_key = serialization.load_pem_private_key(RSA_PEM.strip() + b"\n", password=None)
ec_key = ec.derive_private_key(EC_SCALAR, ec.SECP256R1())


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uint(n, size=None):
    size = size or (n.bit_length() + 7) // 8
    return b64(n.to_bytes(size, "big"))


def jwks():
    rsa_public = rsa_key.public_key().public_numbers()
    ec_public = ec_key.public_key().public_numbers()
    return {"keys": [
        {"kty": "RSA", "kid": "fuzz-rs", "use": "sig", "alg": "RS256", "n": uint(rsa_public.n), "e": uint(rsa_public.e)},
        {"kty": "EC", "kid": "fuzz-es", "use": "sig", "alg": "ES256", "crv": "P-256",
         "x": uint(ec_public.x, 32), "y": uint(ec_public.y, 32)},
    ]}


def token(claims, alg="RS256", kid="fuzz-rs", header_extra=None):
    header = {"alg": alg, "typ": "JWT"}
    if kid is not None:
        header["kid"] = kid
    header.update(header_extra or {})
    signing_input = (b64(json.dumps(header, separators=(",", ":")).encode()) + "."
                     + b64(json.dumps(claims, separators=(",", ":")).encode())).encode()
    if alg == "RS256":
        signature = rsa_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    elif alg == "ES256":
        r, s = decode_dss_signature(ec_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        signature = b""
    return signing_input.decode() + "." + b64(signature)


def claims(**changes):
    base = {"iss": ISSUER, "sub": "user-1", "aud": CLIENT, "iat": NOW - 60, "exp": NOW + 3600, "nonce": NONCE,
            "email": "user@example.com", "email_verified": "true"}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def write(target, name, data):
    folder = os.path.join("Tests", "Fuzz", "Corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def js(value):
    return json.dumps(value, separators=(",", ":"))


def main():
    write("id-token", "rs256", token(claims()))
    write("id-token", "es256", token(claims(), alg="ES256", kid="fuzz-es"))
    write("id-token", "aud-array-azp", token(claims(aud=[CLIENT, "other"], azp=CLIENT)))
    write("id-token", "other-user", token(claims(sub="user-2")))
    write("id-token", "expired", token(claims(iat=NOW - 7200, exp=NOW - 3600)))
    write("id-token", "wrong-nonce", token(claims(nonce="other")))
    write("id-token", "no-kid", token(claims(), kid=None))
    write("id-token", "alg-none", token(claims(), alg="none"))
    write("id-token", "crit", token(claims(), header_extra={"crit": ["exp"]}))

    write("token-response", "oauth-full", js({"access_token": "at-1.abc", "token_type": "Bearer", "expires_in": 3600,
                                              "refresh_token": "rt-1", "refresh_expires_in": 86400, "scope": "openid"}))
    write("token-response", "oauth-minimal", js({"access_token": "at", "token_type": "bearer"}))
    write("token-response", "oauth-quoted-expiry", js({"access_token": "at", "token_type": "Bearer", "expires_in": "60"}))
    write("token-response", "oauth-id-token", js({"access_token": "at", "token_type": "Bearer", "expires_in": 2,
                                                  "id_token": token(claims())}))
    write("token-response", "reference-login", js({"accessToken": "eyJ.access", "accessTokenExpire": (NOW + 2) * 1000,
                                                   "refreshToken": "refresh-1", "refreshTokenExpire": (NOW + 86400) * 1000}))
    write("token-response", "reference-refresh", js({"accessToken": "a2", "accessTokenExpire": (NOW + 60) * 1000}))

    write("oauth-error", "invalid-grant", js({"error": "invalid_grant", "error_description": "refresh token expired"}))
    write("oauth-error", "invalid-client", js({"error": "invalid_client"}))
    write("oauth-error", "pending", js({"error": "authorization_pending", "error_uri": "https://example.com/e"}))
    write("oauth-error", "slow-down-retry", js({"error": "slow_down"}) + "\0" + "5")
    write("oauth-error", "reference-message", js({"message": "wrong login or password"}))
    write("oauth-error", "reference-other", js({"message": "too many requests"}) + "\0" + "Wed, 21 Oct 2026 07:28:00 GMT")

    write("device-authorization", "rfc8628", js({
        "device_code": "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS", "user_code": "WDJB-MJHT",
        "verification_uri": "https://example.com/device",
        "verification_uri_complete": "https://example.com/device?user_code=WDJB-MJHT", "expires_in": 1800, "interval": 5}))
    write("device-authorization", "google-url", js({
        "device_code": "dc", "user_code": "ABC-DEF", "verification_url": "https://www.google.com/device", "expires_in": "1800"}))
    write("device-authorization", "loopback", js({
        "device_code": "dc", "user_code": "X", "verification_uri": "http://127.0.0.1:8080/device", "expires_in": 600,
        "interval": 0}))

    endpoints = {"authorization_endpoint": ISSUER + "/authorize", "token_endpoint": ISSUER + "/token",
                 "device_authorization_endpoint": ISSUER + "/device", "revocation_endpoint": ISSUER + "/revoke",
                 "jwks_uri": ISSUER + "/jwks", "end_session_endpoint": ISSUER + "/logout"}
    write("discovery", "openid", js(dict(issuer=ISSUER, response_types_supported=["code"], **endpoints)))
    write("discovery", "rfc8414-slash", js({"issuer": ISSUER + "/", "token_endpoint": ISSUER + "/token"}))
    write("discovery", "other-issuer", js(dict(issuer="https://evil.example", **endpoints)))
    write("discovery", "http-endpoint", js({"issuer": ISSUER, "token_endpoint": "http://accounts.example.com/token"}))

    host = f"Host: 127.0.0.1:{PORT}\r\n"
    cookie = f"Cookie: vault_signin_{PORT}={COOKIE}\r\n"
    write("loopback-request", "callback-code", f"GET /callback?code=abc&state={STATE} HTTP/1.1\r\n{host}{cookie}\r\n")
    write("loopback-request", "callback-error", f"GET /callback?error=access_denied&error_description=no+way&state={STATE} "
          f"HTTP/1.1\r\n{host}{cookie}\r\n")
    write("loopback-request", "start", f"GET /start/{START} HTTP/1.1\r\n{host}\r\n")
    write("loopback-request", "wrong-state", f"GET /callback?code=abc&state=nope HTTP/1.1\r\n{host}{cookie}\r\n")
    write("loopback-request", "no-cookie", f"GET /callback?code=abc&state={STATE} HTTP/1.1\r\n{host}\r\n")
    write("loopback-request", "wrong-host", f"GET /callback?code=abc&state={STATE} HTTP/1.1\r\nHost: evil.example\r\n{cookie}\r\n")

    print(js(jwks()))


main()
