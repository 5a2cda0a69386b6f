-- Optional static headers sent with every delivery of an endpoint (e.g. x-make-apikey for Make's webhook API-key check):
-- the names and values sealed together by the SecretBox (JSON object), and the names alone, comma-separated and
-- lower-cased, for the API to show without opening the secret.
ALTER TABLE webhook_endpoints ADD COLUMN headers_encrypted TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN header_names TEXT NOT NULL DEFAULT '';
