-- Memberships that came from a directory (the identity provider's group claim, LDAP): `source`
-- names it ('oidc', 'ldap'); NULL is a membership an administrator added by hand. A sign-in
-- brings the directory's memberships up to date and never touches the hand-made ones.
ALTER TABLE access_group_members ADD COLUMN source TEXT;
