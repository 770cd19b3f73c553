package dev.mailroom.attachment;

import dev.mailroom.contract.AttachmentRule;
import dev.mailroom.platform.settings.InvalidSetting;
import dev.mailroom.platform.settings.SettingsReader;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How attachments are fetched and how large they may be, read once at deployment.
 *
 * @param allowedPrefixes URL prefixes an attachment by reference may be fetched from; none: every such job is refused
 * @param maxBytes        the limit of one attachment
 * @param maxJobBytes     the limit of a job's attachments together
 * @param connectTimeout  bound on connecting to the source
 * @param timeout         bound on one fetch, from the request to the last byte
 * @param maxRedirects    redirects followed (each one under the allowed prefixes)
 * @param cacheBytes      fetched bytes kept in memory by URL and SHA-256 for a retry of the same job (0: none)
 */
public record AttachmentSettings(List<String> allowedPrefixes, long maxBytes, long maxJobBytes, Duration connectTimeout,
                                 Duration timeout, int maxRedirects, long cacheBytes) {

    public static final String ALLOWED_PREFIXES = "mailroom.attachments.allowed-prefixes";
    public static final String CONNECT_TIMEOUT = "mailroom.attachments.connect-timeout";
    public static final String TIMEOUT = "mailroom.attachments.timeout";
    public static final String MAX_REDIRECTS = "mailroom.attachments.max-redirects";
    public static final String CACHE_BYTES = "mailroom.attachments.cache-bytes";

    public AttachmentSettings {
        allowedPrefixes = List.copyOf(allowedPrefixes);
    }

    /** @throws InvalidSetting naming the key of a value that cannot be used */
    public static AttachmentSettings read(SettingsReader settings) {
        List<String> prefixes = settings.find(ALLOWED_PREFIXES)
                .map(v -> v.as(AttachmentSettings::prefixes, "comma-separated http:// or https:// URL prefixes with a "
                        + "host, such as https://files.shop.example/mail/"))
                .orElse(List.of());
        long maxBytes = settings.longInteger(AttachmentRule.DEFAULT_MAX_BYTES, 1, Long.MAX_VALUE,
                AttachmentRule.MAX_BYTES_SETTING);
        long maxJobBytes = settings.longInteger(Math.max(maxBytes, AttachmentRule.DEFAULT_MAX_JOB_BYTES), 1,
                Long.MAX_VALUE, AttachmentRule.MAX_JOB_BYTES_SETTING);
        return new AttachmentSettings(prefixes, maxBytes, maxJobBytes,
                settings.positiveDuration(Duration.ofSeconds(5), CONNECT_TIMEOUT),
                settings.positiveDuration(Duration.ofSeconds(30), TIMEOUT),
                settings.integer(3, 0, 10, MAX_REDIRECTS),
                settings.longInteger(64L * 1024 * 1024, 0, Long.MAX_VALUE, CACHE_BYTES));
    }

    private static List<String> prefixes(String text) {
        List<String> out = new java.util.ArrayList<>();
        for (String p : text.split(",")) {
            String prefix = p.trim();
            if (prefix.isEmpty()) {
                continue;
            }
            URI uri = URI.create(prefix);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
                    || uri.getRawUserInfo() != null) {
                throw new IllegalArgumentException("not an http(s) URL prefix with a host: " + prefix);
            }
            out.add(prefix);
        }
        return out;
    }
}
