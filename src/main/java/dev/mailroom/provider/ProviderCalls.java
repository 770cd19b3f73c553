package dev.mailroom.provider;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

/**
 * Every provider call goes through here, under MicroProfile Fault Tolerance: a connection-level blip
 * (nothing was written) gets one quick second try in-process; {@code @Timeout} bounds the whole call
 * beyond the provider's own connect/read timeouts. Everything longer is the recoverability policy's,
 * as a retry scheduled on the broker. Values can be tuned by MicroProfile Config
 * ({@code dev.mailroom.provider.ProviderCalls/send/Timeout/value}, ...).
 */
@ApplicationScoped
public class ProviderCalls {

    /** This bean through its proxy, so that the call to {@link #guarded} passes the interceptors. */
    @Inject
    ProviderCalls self;

    /** A provider call that failed before anything was written: safe to try again at once. */
    public static final class ConnectionBlip extends RuntimeException {
        private final transient ProviderResponse response;

        ConnectionBlip(ProviderResponse response) {
            super(response.text(), null, false, false);
            this.response = response;
        }

        public ProviderResponse response() {
            return response;
        }
    }

    /**
     * The provider's answer. Never throws for the outside world's faults: an exhausted blip and a
     * timeout come back as NOT_CONNECTED / AMBIGUOUS responses.
     */
    public ProviderResponse send(MailProvider provider, OutboundMail mail, SendCheckpoint checkpoint) {
        return send(provider, mail, checkpoint, true);
    }

    /**
     * @param retryBlip false for a circuit breaker's probe: one connection attempt per probe, so a
     *                  provider that is down sees at most one per breaker delay
     */
    public ProviderResponse send(MailProvider provider, OutboundMail mail, SendCheckpoint checkpoint, boolean retryBlip) {
        AtomicBoolean passedPointOfNoReturn = new AtomicBoolean();
        SendCheckpoint tracking = () -> {
            checkpoint.beforeIrrevocableWrite();
            passedPointOfNoReturn.set(true);
        };
        try {
            return retryBlip ? self.guarded(provider, mail, tracking) : self.guardedOnce(provider, mail, tracking);
        } catch (ConnectionBlip blip) {
            return blip.response();
        } catch (TimeoutException timeout) {
            return new ProviderResponse(passedPointOfNoReturn.get() ? ProviderResponse.Status.AMBIGUOUS
                    : ProviderResponse.Status.NOT_CONNECTED, provider.name(), null, null,
                    "call exceeded its fault-tolerance timeout", null, null, TimeoutException.class.getName());
        }
    }

    /** As {@link #guarded}, without the quick second try. */
    @Timeout(value = 120, unit = ChronoUnit.SECONDS)
    public ProviderResponse guardedOnce(MailProvider provider, OutboundMail mail, SendCheckpoint checkpoint) {
        return call(provider, mail, checkpoint);
    }

    @Retry(maxRetries = 1, delay = 200, jitter = 100, delayUnit = ChronoUnit.MILLIS, retryOn = ConnectionBlip.class)
    @Timeout(value = 120, unit = ChronoUnit.SECONDS)
    public ProviderResponse guarded(MailProvider provider, OutboundMail mail, SendCheckpoint checkpoint) {
        return call(provider, mail, checkpoint);
    }

    private static ProviderResponse call(MailProvider provider, OutboundMail mail, SendCheckpoint checkpoint) {
        ProviderResponse r = provider.send(mail, checkpoint);
        if (r.status() == ProviderResponse.Status.NOT_CONNECTED) {
            throw new ConnectionBlip(r);
        }
        return r;
    }
}
