package dev.mailroom.reconcile;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Fetches SNS signing certificates over https with the JDK client and keeps them (SNS rotates rarely). */
public final class HttpsCertificateSource implements CertificateSource {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final Map<URI, X509Certificate> cache = new ConcurrentHashMap<>();

    @Override
    public X509Certificate certificate(URI url) throws Exception {
        X509Certificate cached = cache.get(url);
        if (cached != null) {
            return cached;
        }
        HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("certificate fetch answered " + response.statusCode());
        }
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(response.body()));
        cache.put(url, certificate);
        return certificate;
    }
}
