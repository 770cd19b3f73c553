package dev.mailroom.job;

import java.util.Objects;

/**
 * The content of one mail, ready for a provider: a subject and at least one body part.
 *
 * @param subject the subject (never null; contains no control characters when it came from
 *                {@link TemplateRenderer})
 * @param text    the text/plain part, or null
 * @param html    the text/html part, or null
 */
public record RenderedContent(String subject, String text, String html) {
    public RenderedContent {
        Objects.requireNonNull(subject, "subject");
        if (text == null && html == null) {
            throw new IllegalArgumentException("content needs a text or an html part");
        }
    }
}
