import { data, Link, redirect } from "react-router";
import type { Route } from "./+types/product";
import { requestContext } from "../context";
import { descriptionParagraphs, productPath } from "../../shared/catalogue";
import { productAnchorId } from "../../shared/basket";
import { productSlugSchema } from "../../shared/catalogue-schemas";
import { Price } from "../components/ui/price";
import { Stars } from "../components/ui/stars";
import { useServerDocument } from "../components/server-document";
import { BasketButton } from "../features/basket/components/basket-button";
import { Breadcrumbs } from "../features/catalogue/components/breadcrumbs";
import { ProductImage } from "../features/catalogue/components/product-image";
import { jsonForScriptElement, productStructuredData } from "../features/catalogue/product-structured-data";

/** A product's own page. An old slug answers 301 to the current one; an archived product's page says so, as a 404. */
export async function loader({ context, params }: Route.LoaderArgs) {
  const { services, publicOrigin } = context.get(requestContext);
  const slug = productSlugSchema.safeParse(params.slug);
  if (!slug.success) throw data(null, { status: 404 });
  const found = await services.catalogue.findProductPage(slug.data);
  switch (found.kind) {
    case "moved":
      throw redirect(productPath(found.slug), 301);
    case "unknown":
      throw data(null, { status: 404 });
    case "archived":
      return data({ kind: "archived" as const, title: found.title }, { status: 404 });
    case "product":
      return { kind: "product" as const, product: found.product, trail: await services.departments.trailOfProduct(found.product.id), origin: publicOrigin };
  }
}

/** The longest description a link preview or search result shows. */
const SUMMARY_LENGTH = 160;

export default function ProductPage({ loaderData }: Route.ComponentProps) {
  const nonce = useServerDocument()?.nonce;
  if (loaderData.kind === "archived") {
    return (
      <main id="main" className="status-page">
        <title>{`${loaderData.title} is no longer available | Storefront`}</title>
        <meta name="robots" content="noindex" />
        <h1>This product is no longer available</h1>
        <p>{loaderData.title} is no longer sold at Storefront.</p>
        <Link className="button" to="/">
          Go to the home page
        </Link>
      </main>
    );
  }
  const { product, trail, origin } = loaderData;
  const pageUrl = new URL(productPath(product.slug), origin).href;
  const imageUrl = new URL(product.image.src, origin).href;
  const paragraphs = descriptionParagraphs(product.description);
  const firstParagraph = paragraphs[0] ?? product.title;
  const summary = firstParagraph.length > SUMMARY_LENGTH ? `${firstParagraph.slice(0, SUMMARY_LENGTH - 1).trimEnd()}…` : firstParagraph;
  return (
    <main id="main" className="product-page">
      <title>{`${product.title} | Storefront`}</title>
      <meta name="description" content={summary} />
      <link rel="canonical" href={pageUrl} />
      <meta property="og:type" content="product" />
      <meta property="og:site_name" content="Storefront" />
      <meta property="og:title" content={product.title} />
      <meta property="og:description" content={summary} />
      <meta property="og:url" content={pageUrl} />
      <meta property="og:image" content={imageUrl} />
      <meta property="og:image:width" content={String(product.image.width)} />
      <meta property="og:image:height" content={String(product.image.height)} />
      <script
        type="application/ld+json"
        nonce={nonce}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{ __html: jsonForScriptElement(productStructuredData(product, pageUrl, imageUrl, summary)) }}
      />
      {trail.length > 0 ? <Breadcrumbs trail={trail} origin={origin} /> : null}
      {/* Every product picture is drawn at one size (400 × 400 WebP), so there is no srcset to choose from. */}
      <ProductImage product={product} className="product-page__image" load="first" sizes="(max-width: 440px) calc(100vw - 40px), 400px" />
      {/* The anchor a form post's answer returns to (#product-…), as on the cards of the home page. */}
      <div id={productAnchorId(product.id)} className="product-page__details">
        <h1 className="product-page__title">{product.title}</h1>
        <p className="product-page__rating">
          <Stars rating={product.rating} />
        </p>
        <p className="product-page__price">
          <Price cents={product.priceCents} />
        </p>
        <BasketButton action="add" productId={product.id}>
          Add to Basket
        </BasketButton>
        <section className="product-page__description" aria-labelledby="product-description">
          <h2 id="product-description">About this item</h2>
          {paragraphs.map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
        </section>
      </div>
    </main>
  );
}
