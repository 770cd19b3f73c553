package dev.mailroom.ops.jmx;

import dev.mailroom.send.ProviderBreakers;
import java.util.function.Function;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** The MBean of one provider's breaker: reads {@link ProviderBreakers#views()} inside the deployment. */
public final class ProviderBreakerBean implements ProviderBreakerMBean {

    private final String provider;
    private final ProviderBreakers breakers;
    private final QueueMBeans door;

    ProviderBreakerBean(String provider, ProviderBreakers breakers, QueueMBeans door) {
        this.provider = provider;
        this.breakers = breakers;
        this.door = door;
    }

    static ObjectName objectName(String provider) throws MalformedObjectNameException {
        String value = provider.matches("[A-Za-z0-9_.\\-]+") ? provider : ObjectName.quote(provider);
        return new ObjectName(QueueDeadLetters.DOMAIN + ":type=ProviderBreaker,provider=" + value);
    }

    @Override
    public String getProvider() {
        return provider;
    }

    @Override
    public String getKind() {
        return read(ProviderBreakers.View::kind);
    }

    @Override
    public String getBreakerState() {
        return read(ProviderBreakers.View::state);
    }

    @Override
    public String getSince() {
        return read(v -> v.since().toString());
    }

    @Override
    public String getLastFailure() {
        return read(ProviderBreakers.View::lastFailure);
    }

    @Override
    public double getRateLimitPerSecond() {
        return read(ProviderBreakers.View::rateLimitPerSecond);
    }

    private <T> T read(Function<ProviderBreakers.View, T> attribute) {
        QueueMBeans.Outcome<T> o = door.inDeployment(() -> breakers.views().stream()
                .filter(v -> v.name().equals(provider)).findFirst().map(attribute)
                .orElseThrow(() -> new IllegalStateException("provider " + provider + " is no longer configured")));
        if (o.failure() != null) {
            throw o.failure();
        }
        return o.value();
    }
}
