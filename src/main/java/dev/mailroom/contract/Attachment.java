package dev.mailroom.contract;

import java.util.Objects;

/**
 * One attachment of a job, as the contract's schema has checked it: inline ({@code contentBase64} set) or by reference
 * ({@code url}, {@code sha256} and {@code size} set), never both.
 *
 * @param filename      the name the recipient sees
 * @param contentType   MIME type with optional parameters
 * @param contentBase64 the bytes, base64, for an inline attachment; else null
 * @param url           where the bytes are fetched at send time, for one by reference; else null
 * @param sha256        lower-case hex SHA-256 of the fetched bytes, with {@code url}
 * @param size          the fetched bytes' length, with {@code url}
 */
public record Attachment(String filename, String contentType, String contentBase64, String url, String sha256,
                         Long size) {

    public Attachment {
        Objects.requireNonNull(filename, "filename");
        Objects.requireNonNull(contentType, "contentType");
        if ((contentBase64 == null) == (url == null)) {
            throw new IllegalArgumentException("an attachment is inline or by reference: " + filename);
        }
        if (url != null && (sha256 == null || size == null)) {
            throw new IllegalArgumentException("an attachment by reference needs sha256 and size: " + filename);
        }
    }

    /** Whether the bytes travel in the job. */
    public boolean isInline() {
        return contentBase64 != null;
    }
}
