package dev.mailroom.testsupport;

import java.lang.reflect.Proxy;

/** Stand-ins for JDBC and JMS interfaces in unit tests: each call answered by method name. */
public final class Proxies {

    private Proxies() {
    }

    /** What a stand-in answers to a call of {@code method} with {@code args}. */
    @FunctionalInterface
    public interface Answer {
        Object answer(String method, Object[] args) throws Exception;
    }

    /** A {@code type} whose every call {@code answer} answers. */
    public static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (p, m, args) -> answer.answer(m.getName(), args)));
    }
}
