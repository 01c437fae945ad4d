package io.shardwise.examples.web;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * A Spring Boot web app whose {@link BookService} caches with {@code @Cacheable} over a sharded
 * fleet. Everything about the cache is in {@code application.properties}; run it with {@code
 * examples/run.sh spring-boot-web}.
 */
@SpringBootApplication
@EnableCaching
public class WebApplication {

  public static void main(String[] args) {
    SpringApplication.run(WebApplication.class, args);
  }
}
