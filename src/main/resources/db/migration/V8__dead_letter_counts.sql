-- Counts kept on write (dev.mailroom.deadletter.DeadLetterCounts), so the groups and the arrivals answer
-- without scanning dead_letter (bench/README.md: a million rows). Null key columns are stored as ''.

-- Dead letters per (status, group, consumer version), with the first and last failed_at among them.
create table dead_letter_group_count (
    status            varchar(20)   not null,
    source_queue      varchar(200)  not null,
    reason            varchar(60)   not null,
    failure_class     varchar(40)   not null,
    error_type        varchar(300)  not null,
    error_fingerprint varchar(1000) not null,
    consumer_version  varchar(100)  not null,
    dead_letters      bigint        not null,
    first_failed_at   timestamp with time zone,
    last_failed_at    timestamp with time zone,
    constraint pk_dead_letter_group_count primary key (status, source_queue, reason, failure_class, error_type,
        error_fingerprint, consumer_version)
);

-- Dead letters (any status) per bucket of failed_at: bucket = floor(epoch seconds / bucket_seconds), 60 or 3600.
create table dead_letter_arrival (
    bucket_seconds integer      not null,
    bucket         bigint       not null,
    source_queue   varchar(200) not null,
    reason         varchar(60)  not null,
    arrived        bigint       not null,
    constraint pk_dead_letter_arrival primary key (bucket_seconds, bucket, source_queue, reason)
);

insert into dead_letter_group_count (status, source_queue, reason, failure_class, error_type, error_fingerprint,
    consumer_version, dead_letters, first_failed_at, last_failed_at)
select status, source_queue, reason, failure_class, et, fp, cv, count(*), min(failed_at), max(failed_at)
from (select status, source_queue, reason, failure_class, coalesce(error_type, '') as et,
             coalesce(error_fingerprint, '') as fp, coalesce(consumer_version, '') as cv, failed_at
      from dead_letter) x
group by status, source_queue, reason, failure_class, et, fp, cv;

insert into dead_letter_arrival (bucket_seconds, bucket, source_queue, reason, arrived)
select 60, b, source_queue, reason, count(*)
from (select cast(floor(extract(epoch from failed_at) / 60) as bigint) as b, source_queue, reason from dead_letter) x
group by b, source_queue, reason;

insert into dead_letter_arrival (bucket_seconds, bucket, source_queue, reason, arrived)
select 3600, b, source_queue, reason, count(*)
from (select cast(floor(extract(epoch from failed_at) / 3600) as bigint) as b, source_queue, reason from dead_letter) x
group by b, source_queue, reason;

-- The members of one counted group in failed_at order: a removal reads the group's first and last again
-- from here (two index probes), and the groups of a time window are an index-only GROUP BY. Replaces V7's
-- ix_dead_letter_groups, which lacked failure_class and consumer_version.
drop index ix_dead_letter_groups;
create index ix_dead_letter_group_members on dead_letter (status, source_queue, reason, failure_class, error_type,
    error_fingerprint, consumer_version, failed_at);
-- the list filters fingerprint= (a group's members) and status= in the list's keyset order
create index ix_dead_letter_list_error_fingerprint on dead_letter (error_fingerprint, failed_at, id);
drop index ix_dead_letter_status;
create index ix_dead_letter_list_status on dead_letter (status, failed_at, id);
