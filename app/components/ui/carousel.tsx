import { startTransition, useEffect, useState, useSyncExternalStore } from "react";
import { ChevronIcon } from "./icons";

export interface Slide {
  src: string;
  /** Widths of the same picture (the browser picks one for the carousel's width, which is the page's). */
  srcSet?: string;
  width: number;
  height: number;
  /** Read out as the slide's name and used as the picture's alt text. */
  label: string;
}

interface CarouselProps {
  label: string;
  slides: readonly Slide[];
  /** Time each slide stays before the next, in milliseconds. */
  intervalMs: number;
}

/**
 * A rotating banner following the WAI-ARIA carousel pattern (https://www.w3.org/WAI/ARIA/apg/patterns/carousel/):
 * it advances by itself and loops forever, stops while hovered or focused, never moves by itself when the
 * shopper asks for reduced motion, and has previous, next and pause buttons reachable from the keyboard.
 * Slides cross-fade in place, so looping from the last to the first needs no trickery. No dots, no "1 of 6".
 */
export function Carousel({ label, slides, intervalMs }: CarouselProps) {
  const [current, setCurrent] = useState(0);
  const [isHovered, setHovered] = useState(false);
  const [isFocused, setFocused] = useState(false);
  const [isStopped, setStopped] = useState(false);
  const prefersReducedMotion = usePrefersReducedMotion();
  // The buttons need the script: until it runs they are shown disabled rather than silently doing nothing.
  const isInteractive = useIsHydrated();
  const isRotating = !isHovered && !isFocused && !isStopped && !prefersReducedMotion;

  useEffect(() => {
    if (!isRotating) return;
    const timer = setInterval(() => setCurrent((index) => (index + 1) % slides.length), intervalMs);
    return () => clearInterval(timer);
  }, [isRotating, intervalMs, slides.length]);

  const show = (step: number) => setCurrent((index) => (index + step + slides.length) % slides.length);

  return (
    <section
      className="carousel"
      aria-roledescription="carousel"
      aria-label={label}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
    >
      <div className="carousel__controls">
        <button type="button" className="carousel__button carousel__button--previous" aria-label="Previous slide" disabled={!isInteractive} onClick={() => show(-1)}>
          <ChevronIcon direction="left" />
        </button>
        <button type="button" className="carousel__button carousel__button--next" aria-label="Next slide" disabled={!isInteractive} onClick={() => show(1)}>
          <ChevronIcon direction="right" />
        </button>
        {prefersReducedMotion ? null : (
          <button type="button" className="carousel__rotation" disabled={!isInteractive} onClick={() => setStopped((stopped) => !stopped)}>
            {isStopped ? "Start slide rotation" : "Stop slide rotation"}
          </button>
        )}
      </div>
      <div className="carousel__slides" aria-live={isRotating ? "off" : "polite"}>
        {slides.map((slide, index) => {
          const isCurrent = index === current;
          return (
            <div
              key={slide.src}
              className={isCurrent ? "carousel__slide carousel__slide--current" : "carousel__slide"}
              role="group"
              aria-roledescription="slide"
              aria-label={slide.label}
              aria-hidden={!isCurrent}
              inert={!isCurrent}
            >
              {/* The first banner is the home page's largest paint. The others can only be shown by the script, so
                  they are drawn once it runs: fetched at load, they took bandwidth from the first (about 65 kB of a
                  phone's first 250 kB). */}
              {index === 0 || isInteractive ? (
                <img
                  src={slide.src}
                  srcSet={slide.srcSet}
                  sizes={slide.srcSet ? "100vw" : undefined}
                  width={slide.width}
                  height={slide.height}
                  alt={slide.label}
                  {...(index === 0 ? { fetchPriority: "high" } : { loading: "lazy", decoding: "async" })}
                />
              ) : null}
            </div>
          );
        })}
      </div>
    </section>
  );
}

/** Set by the first carousel that hydrates: one mounted later (a client-side visit to /) starts interactive. */
let isPageHydrated = false;

/**
 * False on the server and while hydrating, true once this component runs in the browser. Not useSyncExternalStore
 * with a server snapshot: that forces a synchronous re-render right after hydration, one long task together with
 * the hydration's effects. As a transition the re-render (drawing five banners) is done in short slices.
 */
function useIsHydrated(): boolean {
  const [isHydrated, setHydrated] = useState(isPageHydrated);
  useEffect(() => {
    if (isHydrated) return;
    isPageHydrated = true;
    startTransition(() => setHydrated(true));
  }, [isHydrated]);
  return isHydrated;
}

const reducedMotionQuery = "(prefers-reduced-motion: reduce)";

function subscribeToReducedMotion(onChange: () => void) {
  const query = window.matchMedia(reducedMotionQuery);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** The shopper's motion preference; the server assumes motion is fine and the browser corrects it at hydration. */
function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    subscribeToReducedMotion,
    () => window.matchMedia(reducedMotionQuery).matches,
    () => false,
  );
}
