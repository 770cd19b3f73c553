package dev.mailroom.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the contract says of attachments beyond their schema: inline content must decode (a length that is no multiple
 * of four, padding in the middle), and no attachment, nor all of a job's together, may be larger than the server's
 * limits ({@value #MAX_BYTES_SETTING}, {@value #MAX_JOB_BYTES_SETTING}). Sizes are known before anything is fetched:
 * an inline file's from its base64 length, one by reference from its declared {@code size} (the fetch refuses bytes
 * that differ from it), so an oversized job is refused before any fetch and any provider call.
 */
public final class AttachmentRule {

    public static final String MAX_BYTES_SETTING = "mailroom.attachments.max-bytes";
    public static final String MAX_JOB_BYTES_SETTING = "mailroom.attachments.max-job-bytes";
    /** Default limit of one attachment: 10 MiB (what the large mailbox providers take in one mail, roughly). */
    public static final long DEFAULT_MAX_BYTES = 10L * 1024 * 1024;
    /** Default limit of all of a job's attachments together: 20 MiB. */
    public static final long DEFAULT_MAX_JOB_BYTES = 20L * 1024 * 1024;

    /** The schema's alphabet check; content outside it is the schema's violation, not reported twice here. */
    private static final Pattern ALPHABET = Pattern.compile("[A-Za-z0-9+/]*={0,2}");

    private AttachmentRule() {
    }

    /** The decision on one job's attachments. */
    public sealed interface Decision {
    }

    /** Within the limits. */
    public record Allowed() implements Decision {
    }

    /** Refused; {@code violation} is {@code <path>: <what>} like any contract violation. */
    public record Refused(RejectReason reason, String violation) implements Decision {
    }

    /**
     * @param attachments   the job's attachments, as the schema checked them
     * @param maxBytes      the limit of one attachment
     * @param maxJobBytes   the limit of all of them together
     */
    public static Decision decide(List<Attachment> attachments, long maxBytes, long maxJobBytes) {
        long total = 0;
        for (int i = 0; i < attachments.size(); i++) {
            long size = sizeOf(attachments.get(i));
            if (size > maxBytes) {
                return new Refused(RejectReason.attachment_too_large, "/attachments/" + i + ": " + size
                        + " bytes; the limit of one attachment is " + maxBytes + " bytes (" + MAX_BYTES_SETTING + ")");
            }
            total += size;
        }
        if (total > maxJobBytes) {
            return new Refused(RejectReason.attachment_too_large, "/attachments: " + total
                    + " bytes together; the limit of a job's attachments is " + maxJobBytes + " bytes ("
                    + MAX_JOB_BYTES_SETTING + ")");
        }
        return new Allowed();
    }

    /** The bytes an attachment carries: decoded from its base64 length, or its declared size. */
    public static long sizeOf(Attachment a) {
        if (!a.isInline()) {
            return a.size();
        }
        String b64 = a.contentBase64();
        int padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
        return (long) b64.length() / 4 * 3 - padding;
    }

    /** One violation per inline attachment whose {@code content_base64} does not decode. */
    static List<String> undecodable(JsonNode attachments) {
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < attachments.size(); i++) {
            JsonNode content = attachments.get(i).get("content_base64");
            if (content == null || !content.isTextual() || !ALPHABET.matcher(content.textValue()).matches()) {
                continue;
            }
            String text = content.textValue();
            String problem = null;
            if (text.length() % 4 != 0) {
                // the JDK decoder accepts unpadded input; the contract asks for padded, as every encoder writes it
                problem = "its length " + text.length() + " is no multiple of 4";
            } else {
                try {
                    Base64.getDecoder().decode(text);
                } catch (IllegalArgumentException e) {
                    problem = ParseMessages.abbreviate(String.valueOf(e.getMessage()), 100);
                }
            }
            if (problem != null) {
                violations.add("/attachments/" + i + "/content_base64: does not decode as base64 (" + problem + ")");
            }
        }
        return violations;
    }
}
