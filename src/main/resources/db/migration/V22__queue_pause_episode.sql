-- A stopped line keeps its outage: a line that restarts and stops again within the same outage keeps when it
-- began and what began it. reason / detail / paused_since stay the current stop (what lifts it); these say which
-- outage it is part of. Null first_reason: a row written before, its stop began its outage.
alter table queue_pause add column first_reason varchar(40);
alter table queue_pause add column first_detail varchar(2000);
alter table queue_pause add column outage_since timestamp with time zone;
alter table queue_pause add column failed_probes integer default 0 not null;
