"""Row changes of binlogs as SQL a DBA can run or undo (`binlogkit sql`), as change
events in JSON lines, and as per-table statistics (`binlogkit stats`)."""
