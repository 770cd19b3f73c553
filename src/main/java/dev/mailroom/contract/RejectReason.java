package dev.mailroom.contract;

/**
 * Why a send job was refused before any send was attempted. Every value is a property of the job's
 * bytes (or of the template it names), so retrying cannot help: the consumer dead-letters such a job
 * at once (failure class {@code poison}, docs/how-it-works.md "When a send fails"). The names are the wire/database vocabulary and
 * are deliberately lower snake case.
 */
public enum RejectReason {
    /** The body is larger than the parser's limit; it was not parsed at all. */
    too_large,
    /** The bytes are not valid UTF-8, not JSON, or not a single JSON object. */
    not_json,
    /** {@code schema_version} is present but is not a version this build understands (1 to 3). */
    unsupported_schema_version,
    /** A JSON object that breaks the job contract ({@code mailroom-job.schema.json}). */
    schema_violation,
    /** The job names a template that does not exist (or an id that is not a valid template id). */
    missing_template,
    /** The template uses a {@code {{placeholder}}} the job's variables do not provide. */
    missing_template_variable,
    /** A job on a queue that requires a one-click unsubscribe ({@code mailroom.bulk.require-unsubscribe}) has none. */
    missing_unsubscribe,
    /** {@code send_at} is further ahead than the server's horizon ({@code mailroom.send-at.horizon}, default P30D). */
    send_at_beyond_horizon,
    /** An attachment, or all of a job's attachments together, over the server's size limits; nothing was fetched. */
    attachment_too_large,
    /** An attachment's URL is under none of the server's allowed prefixes; nothing was fetched. */
    attachment_not_allowed
}
