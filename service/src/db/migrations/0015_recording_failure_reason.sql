-- Why a recording failed, for the API and the dashboard (it was only in the log).
ALTER TABLE recordings ADD COLUMN failure_reason TEXT;
