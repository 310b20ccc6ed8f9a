// The home page: the banners and the featured products' shelves.

import type { Route } from "./+types/home";
import type { CatalogueProduct } from "#shared/catalogue";
import { requestContext } from "#app/context";
import { Carousel } from "#app/components/ui/carousel";
import { bannerSlides } from "#shared/shop-pictures";
import { BasketButton } from "#app/features/basket/components/basket-button";
import { ProductShelf } from "#app/features/catalogue/components/product-shelf";
import { useShopName } from "#app/features/shell/use-shop-name";
import { KeptHtml } from "#app/components/kept-html";

/** The shelf layout the shop has always shown: a row of 2, a row of 3, a row of 1. */
const HOME_ROW_SIZES = [2, 3, 1] as const;
const BANNER_INTERVAL_MS = 3_000;

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  // The banners come with the data, not the script: their addresses are the build's, named by content.
  const [products, moreToExplore] = await Promise.all([
    services.catalogue.listProducts(),
    services.catalogue.listMoreToExplore(),
  ]);
  return { products, moreToExplore, banners: bannerSlides };
}

/** Both shelves' cards offer what every card in the shop offers. */
const cardAction = (product: CatalogueProduct) => (
  <BasketButton action="add" productId={product.id}>
    Add to Basket
  </BasketButton>
);

export default function Home({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  return (
    <main id="main" className="home">
      <title>{`${shopName}: books, kitchen, monitors and more`}</title>
      <meta
        name="description"
        content={`Shop books, kitchen mixers, monitors, smart speakers and tablets at ${shopName}.`}
      />
      <h1 className="visually-hidden">{shopName}</h1>
      <Carousel label="Featured offers" slides={loaderData.banners} intervalMs={BANNER_INTERVAL_MS} />
      {/*
        The shelves are kept per catalogue version (server/catalogue), and so is their HTML: the same for every shopper,
        rendered once. Only the header is the shopper's own.
      */}
      <KeptHtml name="home-featured" source={loaderData.products}>
        <ProductShelf products={loaderData.products} rowSizes={HOME_ROW_SIZES} renderAction={cardAction} />
      </KeptHtml>
      {loaderData.moreToExplore.length > 0 ? (
        <section className="home__more" aria-labelledby="more-to-explore-title">
          <h2 id="more-to-explore-title">More to explore</h2>
          {/* One row that scrolls sideways; below the fold, so its pictures load lazily. */}
          <KeptHtml name="home-more-to-explore" source={loaderData.moreToExplore}>
            <ProductShelf
              products={loaderData.moreToExplore}
              rowSizes={[loaderData.moreToExplore.length]}
              renderAction={cardAction}
              isBelowTheFold
            />
          </KeptHtml>
        </section>
      ) : null}
    </main>
  );
}
