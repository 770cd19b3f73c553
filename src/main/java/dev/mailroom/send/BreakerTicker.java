package dev.mailroom.send;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.inject.Inject;

/**
 * Looks at the breakers twice a second, so an open breaker whose delay has passed is announced
 * half-open on time even when no delivery asks (a stopped line has no deliveries to ask).
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class BreakerTicker {

    static final long INTERVAL_MS = 500;

    @Resource
    TimerService timers;
    @Inject
    ProviderBreakers breakers;

    @PostConstruct
    void schedule() {
        timers.createIntervalTimer(INTERVAL_MS, INTERVAL_MS, new TimerConfig("provider-breakers", false));
    }

    @Timeout
    void onTimer() {
        breakers.tick();
    }
}
