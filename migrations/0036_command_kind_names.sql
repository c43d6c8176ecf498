-- A command's kind, as stored and as every answer shows it, is the API's name: the operator's
-- kinds as `POST devices/{sn}/commands/` takes them (`QUERY_ATTLOG` is `reupload_logs`,
-- `CLEAR_LOG` `clear_logs`), the service's `CHECK` and `QUERY_TEMPLATES` lower-cased; the
-- others stay (`add_user`…, and `ENROLL_FP`, `ENROLL_BIO` as docs/spec.md names them). The
-- commands kept, and the `device_command_finished` events the log still holds (what `events/`,
-- streams and webhooks not yet delivered read), are renamed. One pass over each table.
UPDATE `fpa_device_commands` SET `kind` = CASE `kind`
    WHEN 'CHECK' THEN 'check'
    WHEN 'INFO' THEN 'info'
    WHEN 'REBOOT' THEN 'reboot'
    WHEN 'SET_TIME' THEN 'set_time'
    WHEN 'QUERY_USERS' THEN 'query_users'
    WHEN 'QUERY_TEMPLATES' THEN 'query_templates'
    WHEN 'QUERY_ATTLOG' THEN 'reupload_logs'
    WHEN 'CLEAR_LOG' THEN 'clear_logs'
    WHEN 'CLEAR_DATA' THEN 'clear_data'
    WHEN 'RAW' THEN 'raw'
  END
WHERE `kind` IN ('CHECK', 'INFO', 'REBOOT', 'SET_TIME', 'QUERY_USERS', 'QUERY_TEMPLATES', 'QUERY_ATTLOG', 'CLEAR_LOG', 'CLEAR_DATA', 'RAW');--> statement-breakpoint
UPDATE `fpa_events` SET `data` = json_set(`data`, '$.command.kind', CASE json_extract(`data`, '$.command.kind')
    WHEN 'CHECK' THEN 'check'
    WHEN 'INFO' THEN 'info'
    WHEN 'REBOOT' THEN 'reboot'
    WHEN 'SET_TIME' THEN 'set_time'
    WHEN 'QUERY_USERS' THEN 'query_users'
    WHEN 'QUERY_TEMPLATES' THEN 'query_templates'
    WHEN 'QUERY_ATTLOG' THEN 'reupload_logs'
    WHEN 'CLEAR_LOG' THEN 'clear_logs'
    WHEN 'CLEAR_DATA' THEN 'clear_data'
    WHEN 'RAW' THEN 'raw'
  END)
WHERE `type` = 'device_command_finished'
  AND json_extract(`data`, '$.command.kind') IN ('CHECK', 'INFO', 'REBOOT', 'SET_TIME', 'QUERY_USERS', 'QUERY_TEMPLATES', 'QUERY_ATTLOG', 'CLEAR_LOG', 'CLEAR_DATA', 'RAW');
