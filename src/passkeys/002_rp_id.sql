-- The relying party each passkey was made for: the host name the page was opened at
-- (localhost, burrow.local, PUBLIC_URL's host or WEBAUTHN_RP_ID). A browser offers a passkey only
-- at its own name, so Burrow lists and accepts it only there. Passkeys made before this column
-- are NULL here and given, at the next start, the one name they could have been made at:
-- WEBAUTHN_RP_ID or PUBLIC_URL's host, else localhost.
ALTER TABLE passkeys ADD COLUMN rp_id TEXT;
