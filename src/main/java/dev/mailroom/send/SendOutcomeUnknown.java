package dev.mailroom.send;

import java.time.Instant;

/**
 * A send may have reached a provider that cannot drop a duplicate (its call passed the point of no
 * return and then timed out, or its worker died there): the job is {@code unknown} and is never sent
 * again by itself; an operator marks it as sent or sends it again. Fired (synchronously) by the send
 * path; the alert side turns it into an alert.
 *
 * @param path {@code call} (the call failed without an answer) or {@code crash} (the worker died)
 */
public record SendOutcomeUnknown(String provider, String queue, String messageId, long jobId, String path,
                                 String detail, Instant at) {
}
