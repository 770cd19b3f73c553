package dev.mailroom.attachment;

import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;

/**
 * What a failed fetch is, as a {@link Failure} the recoverability policy decides on like any other. A source that says
 * the file is not there (404, 410) or that serves other bytes than the job pinned (size, SHA-256), and a URL the rule
 * refuses (a redirect off the list, an internal address), will not change by trying again: {@code content_policy},
 * dead-lettered for manual review with the reason. A source that is down or slow (5xx, 408, 429, a timeout, no
 * connection) may be back later: {@code transient}, retried on the queue's schedule. Any other 4xx (401, 403, 400) is
 * a fault of the job's URL or of the source's set-up that a retry cannot mend: {@code content_policy}. Pure.
 */
public final class FetchFailures {

    /** The enhanced code on a failed fetch's attempt: the attempt record and the dead letter say what went wrong. */
    public static final String NOT_FOUND = "attachment_not_found";
    public static final String MISMATCH = "attachment_mismatch";
    public static final String REFUSED = "attachment_refused";
    public static final String UNAVAILABLE = "attachment_unavailable";
    public static final String REJECTED = "attachment_rejected";

    private FetchFailures() {
    }

    /**
     * @param index    the attachment's position in the job
     * @param filename its file name
     * @param url      where it was fetched from
     * @param outcome  a failed outcome (not {@link FetchOutcome.Fetched})
     */
    public static Failure classify(int index, String filename, String url, FetchOutcome outcome) {
        String what = "attachment " + index + " (" + filename + ") from " + url + ": ";
        if (outcome instanceof FetchOutcome.Answered a) {
            String status = String.valueOf(a.status());
            String said = what + "the source answered " + a.status();
            if (a.status() == 404 || a.status() == 410) {
                return failure(FailureClass.CONTENT_POLICY, status, NOT_FOUND, said + " (not there)" + text(a.text()), null);
            }
            if (a.status() >= 500 || a.status() == 408 || a.status() == 429) {
                return failure(FailureClass.TRANSIENT, status, UNAVAILABLE, said + text(a.text()), null);
            }
            return failure(FailureClass.CONTENT_POLICY, status, REJECTED, said + text(a.text()), null);
        }
        if (outcome instanceof FetchOutcome.Mismatch m) {
            return failure(FailureClass.CONTENT_POLICY, "mismatch", MISMATCH, what + m.why(), null);
        }
        if (outcome instanceof FetchOutcome.Refused r) {
            return failure(FailureClass.CONTENT_POLICY, "refused", REFUSED, what + r.why(), null);
        }
        if (outcome instanceof FetchOutcome.Unreachable u) {
            return failure(FailureClass.TRANSIENT, null, UNAVAILABLE, what + u.why(), u.errorType());
        }
        throw new IllegalArgumentException("a fetched attachment is no failure");
    }

    /** The error type is the exception's when there was one, else the enhanced code: a dead letter's error_type. */
    private static Failure failure(FailureClass c, String code, String enhancedCode, String text, String errorType) {
        return new Failure(c, null, code, enhancedCode, text, null, errorType != null ? errorType : enhancedCode);
    }

    private static String text(String body) {
        return body == null || body.isBlank() ? "" : ": " + body.strip();
    }
}
