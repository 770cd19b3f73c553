package dev.mailroom.reconcile;

import java.net.URI;
import java.security.cert.X509Certificate;

/**
 * Where the SNS verifier gets a signing certificate from. Production fetches it over https (TLS proves it
 * came from the allowed SNS host) and caches it; tests hand in a certificate they generated.
 */
@FunctionalInterface
public interface CertificateSource {

    /** The certificate at {@code url}; throws when it cannot be had. Only called for URLs that passed the host rule. */
    X509Certificate certificate(URI url) throws Exception;
}
