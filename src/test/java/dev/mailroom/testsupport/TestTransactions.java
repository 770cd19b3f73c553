package dev.mailroom.testsupport;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.TransactionRequiredException;
import jakarta.transaction.Transactional;
import jakarta.transaction.TransactionalException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import org.jboss.weld.injection.spi.JpaInjectionServices;
import org.jboss.weld.injection.spi.ResourceReference;
import org.jboss.weld.injection.spi.ResourceReferenceFactory;

/**
 * {@code @Transactional} and {@code @PersistenceContext} for Weld SE component tests, on a
 * {@link ComponentDatabase}: each transaction is a session of its own (its own connection), so
 * {@code REQUIRES_NEW} commits on its own exactly as under JTA, {@code MANDATORY} refuses to run outside
 * one, and a delivery's transaction ({@link #delivery}) rolls back what it did when the delivery throws.
 * The injected entity manager is the current transaction's.
 */
public abstract class TestTransactions {

    /** The interceptors, one per {@code TxType} the code uses: {@code value} is a binding member of {@code @Transactional}. */
    public static final List<Class<?>> INTERCEPTORS = List.of(Required.class, RequiresNew.class, Mandatory.class);

    @Transactional(Transactional.TxType.REQUIRED)
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
    public static class Required extends TestTransactions {
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
    public static class RequiresNew extends TestTransactions {
    }

    @Transactional(Transactional.TxType.MANDATORY)
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
    public static class Mandatory extends TestTransactions {
    }

    private static volatile ComponentDatabase database;
    /** A commit whose answer is lost: the method whose own transaction commits and then throws, once. */
    private static volatile LostAnswer lostAnswer;

    private record LostAnswer(String method, Exception thrown) { }
    private static final ThreadLocal<Deque<EntityManager>> CURRENT = ThreadLocal.withInitial(ArrayDeque::new);

    /** The database every transaction of the container runs on. */
    public static void use(ComponentDatabase db) {
        database = db;
        lostAnswer = null;
    }

    /**
     * The next {@code REQUIRES_NEW} transaction of a method named {@code method} commits and then throws {@code thrown},
     * as a JTA commit whose answer was lost does (the transaction manager's proxy throws {@code HeuristicMixedException}
     * undeclared): what it wrote is in the database, its caller sees a failure.
     */
    public static void loseTheAnswerOf(String method, Exception thrown) {
        lostAnswer = new LostAnswer(method, thrown);
    }

    /** Runs {@code work} as a delivery does: in a transaction of its own, rolled back if it throws. */
    public static <T> T delivery(Callable<T> work) throws Exception {
        return inNew(work);
    }

    @AroundInvoke
    Object around(InvocationContext ic) throws Exception {
        Transactional t = ic.getMethod().getAnnotation(Transactional.class);
        if (t == null) {
            t = ic.getMethod().getDeclaringClass().getAnnotation(Transactional.class);
        }
        Transactional.TxType type = t == null ? Transactional.TxType.REQUIRED : t.value();
        boolean active = !CURRENT.get().isEmpty();
        return switch (type) {
            case REQUIRES_NEW -> {
                Object result = inNew(ic::proceed);
                LostAnswer lost = lostAnswer;
                if (lost != null && lost.method().equals(ic.getMethod().getName())) {
                    lostAnswer = null;
                    throw lost.thrown();
                }
                yield result;
            }
            case REQUIRED -> active ? ic.proceed() : inNew(ic::proceed);
            case MANDATORY -> {
                if (!active) {
                    throw new TransactionalException(ic.getMethod() + " needs a transaction",
                            new TransactionRequiredException());
                }
                yield ic.proceed();
            }
            default -> ic.proceed();
        };
    }

    private static <T> T inNew(Callable<T> work) throws Exception {
        EntityManager em = database.session();
        em.getTransaction().begin();
        CURRENT.get().push(em);
        try {
            T result = work.call();
            em.getTransaction().commit();
            return result;
        } finally {
            CURRENT.get().pop();
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    /** The current transaction's entity manager. */
    static EntityManager current() {
        EntityManager em = CURRENT.get().peek();
        if (em == null) {
            throw new TransactionRequiredException("no transaction on this thread");
        }
        return em;
    }

    /** Resolves {@code @PersistenceContext} to the current transaction's entity manager. */
    public static final class Jpa implements JpaInjectionServices {
        private static final EntityManager PROXY = (EntityManager) Proxy.newProxyInstance(
                TestTransactions.class.getClassLoader(), new Class<?>[] {EntityManager.class}, (p, m, args) -> {
                    try {
                        return m.invoke(current(), args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        @Override
        public ResourceReferenceFactory<EntityManager> registerPersistenceContextInjectionPoint(InjectionPoint ip) {
            return () -> new ResourceReference<>() {
                @Override
                public EntityManager getInstance() {
                    return PROXY;
                }

                @Override
                public void release() {
                }
            };
        }

        @Override
        public ResourceReferenceFactory<EntityManagerFactory> registerPersistenceUnitInjectionPoint(InjectionPoint ip) {
            throw new UnsupportedOperationException("component tests inject a persistence context, not a unit");
        }

        @Override
        public void cleanup() {
        }
    }
}
