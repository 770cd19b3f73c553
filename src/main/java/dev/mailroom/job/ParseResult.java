package dev.mailroom.job;

import dev.mailroom.contract.RejectReason;

import java.util.Objects;

/**
 * Outcome of {@link JobParser#parse(byte[])}: either a {@link Parsed} job or a {@link Rejected} body.
 * A sealed pair rather than an exception so that the consumer has to handle both, and so that a
 * rejection carries what is needed to record it (reason, detail, and the message id if one could be
 * read).
 */
public sealed interface ParseResult {

    /** Upper bound of {@link Rejected#detail()}, in characters; details are stored and shown verbatim. */
    int MAX_DETAIL_CHARS = dev.mailroom.contract.JobContract.MAX_DETAIL_CHARS;

    /** The body is a valid job. */
    record Parsed(SendJob job) implements ParseResult {
        public Parsed {
            Objects.requireNonNull(job, "job");
        }
    }

    /**
     * The body is not a valid job.
     *
     * @param reason    why, one value per distinct operator action
     * @param detail    human-readable explanation naming the offending JSON paths; never null, at most
     *                  {@link #MAX_DETAIL_CHARS} characters (longer text is cut), control characters
     *                  written as <code>&#92;uXXXX</code> (details echo input, and land in logs and text columns)
     * @param messageId the job's {@code message_id} when the body was a JSON object whose
     *                  {@code message_id} is a well-formed id (a string of 1..200 characters without
     *                  control characters), else null; lets the rejection be attached to the job's row
     */
    record Rejected(RejectReason reason, String detail, String messageId) implements ParseResult {
        public Rejected {
            Objects.requireNonNull(reason, "reason");
            detail = bound(escapeControls(detail == null ? "" : detail));
        }

        private static String escapeControls(String s) {
            StringBuilder sb = null;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                boolean control = c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029';
                if (control && sb == null) {
                    sb = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                if (sb != null) {
                    if (control) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
            return sb == null ? s : sb.toString();
        }

        private static String bound(String s) {
            if (s.length() <= MAX_DETAIL_CHARS) {
                return s;
            }
            String marker = "... (truncated)";
            int cut = MAX_DETAIL_CHARS - marker.length();
            if (Character.isHighSurrogate(s.charAt(cut - 1))) {
                cut--; // never split a surrogate pair
            }
            return s.substring(0, cut) + marker;
        }
    }
}
