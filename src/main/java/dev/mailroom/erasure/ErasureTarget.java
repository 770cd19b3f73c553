package dev.mailroom.erasure;

import java.util.List;

/**
 * A table that can hold an address: its key (one column, to page through it), the column of its state the policy
 * reads (or null), its text columns and its binary ones. {@code match}: the SQL that finds its rows naming the
 * address, else they are found by their text columns ({@code lower(c) like}), and, for a table with binary columns,
 * by reading those here. {@link #ALL} is the list, in the order an erasure goes through it: dead letters before the
 * jobs they hang off, jobs before the text left elsewhere. {@code ErasureBatchComponentTest} reads the schema to find
 * any column this list misses.
 */
record ErasureTarget(String table, String key, String state, List<String> texts, List<String> bytes,
                     ErasurePolicy.Kind kind, String match) {

    static final List<ErasureTarget> ALL = List.of(
            new ErasureTarget("dead_letter", "id", "status", List.of("error", "attempts", "stacktrace"),
                    List.of("payload"), ErasurePolicy.Kind.dead_letter, null),
            new ErasureTarget("dead_letter_revision", "id", null, List.of("reason", "diff"), List.of("payload"),
                    ErasurePolicy.Kind.dead_letter_revision, null),
            new ErasureTarget("held_send", "job_id", null, List.of(), List.of("payload"), ErasurePolicy.Kind.held_send, null),
            new ErasureTarget("mail_job", "id", "state", List.of(), List.of(), ErasurePolicy.Kind.job,
                    "exists (select 1 from job_recipient r where r.job_id = mail_job.id and r.address = :a)"),
            new ErasureTarget("provider_event", "id", "status", List.of("detail", "dedupe_key"), List.of("body"),
                    ErasurePolicy.Kind.provider_event, null),
            new ErasureTarget("sandbox_attachment", "id", null, List.of("filename"), List.of("content"),
                    ErasurePolicy.Kind.sandbox_mail, null),
            new ErasureTarget("sandbox_mail", "id", null,
                    List.of("from_address", "recipients", "subject", "text_body", "html_body"), List.of(),
                    ErasurePolicy.Kind.sandbox_mail, null),
            new ErasureTarget("suppression", "id", null, List.of("address", "cause", "created_why", "lifted_why"),
                    List.of(), ErasurePolicy.Kind.suppression, null),
            text("mail_job", "id", "subject"),
            text("job_recipient_detail", null),
            text("job_event", "id", "detail"),
            text("job_attempt", "id", "response", "decision"),
            text("dead_letter_event", "id", "reason"),
            text("redrive", "id", "reason", "stop_reason"),
            text("redrive_entry", "id", "detail"),
            text("alert_outbox", "id", "labels", "summary"),
            text("queue_pause", "queue", "detail", "first_detail"));

    private static ErasureTarget text(String table, String key, String... columns) {
        if (key == null) {
            // job_recipient has a key of two columns: its delivery details are found by job, recipient by recipient
            return new ErasureTarget("job_recipient", "job_id", null, List.of("delivery_detail"), List.of(),
                    ErasurePolicy.Kind.text, null);
        }
        return new ErasureTarget(table, key, null, List.of(columns), List.of(), ErasurePolicy.Kind.text, null);
    }

    /** Every column read: key, state, texts, bytes. */
    List<String> columns() {
        List<String> c = new java.util.ArrayList<>();
        c.add(key);
        if (state != null) {
            c.add(state);
        }
        c.addAll(texts);
        c.addAll(bytes);
        return c;
    }
}
