-- Failed dashboard sign-ins, one row per failure and subject, so a lockout outlives a restart. The subject is a
-- SHA-256 of "address:<ip>" or "account:<email>" (what people type as an email is sometimes their password).
CREATE TABLE dashboard_sign_in_failures (
  subject   BLOB NOT NULL,
  failed_at INTEGER NOT NULL
) STRICT;
CREATE INDEX dashboard_sign_in_failures_by_subject ON dashboard_sign_in_failures (subject, failed_at);
CREATE INDEX dashboard_sign_in_failures_by_time ON dashboard_sign_in_failures (failed_at);
