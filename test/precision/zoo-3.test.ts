import { zooPart } from './zoo.ts';

zooPart(2, 3);
