package dev.mailroom.provider;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * One file of a mail, its bytes in hand (inline ones decoded, those by reference fetched and checked).
 *
 * @param filename    the name the recipient sees
 * @param contentType MIME type with its parameters, as the job gave it
 * @param content     the bytes (not copied: the caller hands them over)
 */
public record MailAttachment(String filename, String contentType, byte[] content) {

    public MailAttachment {
        Objects.requireNonNull(filename, "filename");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(content, "content");
    }

    /**
     * Whether this is a calendar invitation ({@code text/calendar} with {@code method=REQUEST}, any case, any
     * parameter order): mail clients show it as an invitation only when it is a {@code text/calendar} part beside
     * the body, so providers that build MIME put it there as well as attaching the file.
     */
    public boolean isCalendarInvite() {
        String lower = contentType.toLowerCase(Locale.ROOT).replace(" ", "");
        return lower.startsWith("text/calendar") && (lower.contains(";method=request") || lower.contains(";method=\"request\""));
    }

    /** Lower-case hex SHA-256 of the bytes. */
    public String sha256() {
        return sha256Of(content);
    }

    /** Lower-case hex SHA-256 of {@code bytes}, as the job contract writes an attachment's {@code sha256}. */
    public static String sha256Of(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JRE", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MailAttachment other && filename.equals(other.filename)
                && contentType.equals(other.contentType) && Arrays.equals(content, other.content);
    }

    @Override
    public int hashCode() {
        return Objects.hash(filename, contentType, Arrays.hashCode(content));
    }

    @Override
    public String toString() {
        return "MailAttachment[" + filename + ", " + contentType + ", " + content.length + " bytes]";
    }
}
